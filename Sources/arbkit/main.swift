import ArbCLI
import Glibc

exit(ArbCLI.main(CommandLine.arguments))
