import ArbCLI
import Glibc

// OpenBLAS starts its worker threads when it is loaded, and they spin while idle.
// ArbKit runs BLAS on the calling thread and uses the cores itself, so the threads
// must not exist: OpenBLAS reads OPENBLAS_NUM_THREADS only at load time, hence one
// re-exec with it set (skipped when the caller already chose a value).
if getenv("OPENBLAS_NUM_THREADS") == nil {
  setenv("OPENBLAS_NUM_THREADS", "1", 1)
  execv("/proc/self/exe", CommandLine.unsafeArgv)
}
exit(ArbCLI.main(CommandLine.arguments))
