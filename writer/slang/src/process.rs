//! The system calls a compile worker process makes to set itself up (Linux): an
//! address-space limit, a signal when its parent dies, and a protocol stream of its own, with
//! the process's stdout moved to stderr so that nothing a library prints can corrupt it.
#![allow(
    unsafe_code,
    reason = "libc calls on the process's own limits and file descriptors; each block has a \
              SAFETY note"
)]

use std::fs::File;
use std::os::fd::FromRawFd;

/// Sets the worker up and returns the stream it answers on (the original stdout): the
/// address space limited to `memory_mib` MiB when given (`RLIMIT_AS`), `SIGKILL` when the
/// parent process dies (`PR_SET_PDEATHSIG`), and fd 1 pointing at stderr from now on.
/// `None` when the protocol stream cannot be set up.
pub fn become_worker(memory_mib: Option<u64>) -> Option<File> {
    // SAFETY: plain system calls with valid arguments on this process's own state; `prctl`
    // with PR_SET_PDEATHSIG takes a signal number.
    unsafe {
        libc::prctl(
            libc::PR_SET_PDEATHSIG,
            libc::SIGKILL as libc::c_ulong,
            0,
            0,
            0,
        );
    }
    if let Some(mib) = memory_mib {
        let bytes = mib.saturating_mul(1 << 20) as libc::rlim_t;
        let limit = libc::rlimit {
            rlim_cur: bytes,
            rlim_max: bytes,
        };
        // SAFETY: `limit` is a valid rlimit for the duration of the call.
        unsafe {
            libc::setrlimit(libc::RLIMIT_AS, &limit);
        }
    }
    // SAFETY: duplicating and redirecting this process's standard descriptors; the new fd is
    // owned by the returned File alone.
    unsafe {
        let protocol = libc::dup(libc::STDOUT_FILENO);
        if protocol < 0 || libc::dup2(libc::STDERR_FILENO, libc::STDOUT_FILENO) < 0 {
            return None;
        }
        Some(File::from_raw_fd(protocol))
    }
}

/// Raises `SIGSEGV` in this process, as a crashing compiler would (fault injection in tests).
pub fn raise_segfault() {
    // SAFETY: raising a signal has no preconditions; the default action ends the process.
    unsafe {
        libc::raise(libc::SIGSEGV);
    }
}
