fn main() {
    grow_the_heap_in_large_steps();
    kb::timings::start();
    let code = kb::cli::run();
    kb::timings::report();
    // By now every database connection is closed and every file kb wrote
    // is in the kernel's hands. Leaving through the C runtime would run
    // ONNX Runtime's static destructors: after a failure or a Ctrl-C,
    // under a model batch still running on another thread (an
    // "[E:onnxruntime ...] GetElementType is not implemented" line after
    // kb's last word, or a crash); after a search, freeing its operator registries, a few
    // milliseconds of every one-shot `kb search`. What is left to do is
    // flush and leave.
    use std::io::Write;
    let _ = std::io::stdout().flush();
    let _ = std::io::stderr().flush();
    // SAFETY: _exit only ends the process; nothing runs after it.
    unsafe { libc::_exit(code) }
}

/// glibc grows a heap by what each allocation needs, a page at a time on
/// a thread's own arena (thousands of `mprotect` calls while a model
/// loads: ONNX Runtime and the tokenizer allocate tens of megabytes in
/// small pieces). Growing by 32 MB at a time made a fresh `kb search` at
/// 20,001 chunks about a tenth quicker (docs/benchmarks.md); padding never
/// touched is never resident, so peak memory does not grow.
fn grow_the_heap_in_large_steps() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only sets an allocator parameter; it runs before any
    // other thread exists.
    unsafe {
        libc::mallopt(libc::M_TOP_PAD, HEAP_STEP);
    }
}

#[cfg(all(target_os = "linux", target_env = "gnu"))]
const HEAP_STEP: libc::c_int = 32 << 20;
