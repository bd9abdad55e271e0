//! The linker: relocatable PTX and device libraries into a cubin.

use core::ffi::c_void;

use cudarc::driver::result::DriverError;

use crate::sys;

/// Why a link failed: the driver's code and the linker's error log.
pub(crate) struct LinkFailure {
    pub(crate) call: &'static str,
    pub(crate) source: DriverError,
    pub(crate) log: String,
}

/// `cuLinkCreate` … `cuLinkComplete`: links the relocatable PTX `ptx` (NUL-terminated, named
/// `name` in messages) with the static device libraries `libraries` (`libcudadevrt.a`) into a
/// cubin for the current context's device, and returns a copy of it.
pub(crate) fn link(
    ptx: &std::ffi::CStr,
    name: &std::ffi::CStr,
    libraries: &[std::ffi::CString],
) -> Result<Vec<u8>, LinkFailure> {
    /// Destroys the linker state (which owns the cubin) on every path.
    struct State(sys::CUlinkState);
    impl Drop for State {
        fn drop(&mut self) {
            // SAFETY: created by cuLinkCreate below, destroyed once.
            let _ = unsafe { sys::cuLinkDestroy(self.0) };
        }
    }
    // The error log outlives the state (declared first, dropped last): the linker writes into
    // it until cuLinkDestroy.
    let mut log = vec![0u8; 16 * 1024];
    let mut options = [
        sys::CUjit_option::CU_JIT_ERROR_LOG_BUFFER,
        sys::CUjit_option::CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
    ];
    let mut values = [
        log.as_mut_ptr() as *mut c_void,
        // The size travels in the pointer itself, as the driver API wants it.
        log.len() as *mut c_void,
    ];
    let mut raw: sys::CUlinkState = core::ptr::null_mut();
    let fail = |call: &'static str, rc: DriverError, log: &[u8]| LinkFailure {
        call,
        source: rc,
        log: String::from_utf8_lossy(log.split(|&b| b == 0).next().unwrap_or_default())
            .trim_end()
            .to_string(),
    };
    // SAFETY: the option arrays have two entries each and outlive the state.
    let rc = unsafe {
        sys::cuLinkCreate_v2(
            options.len() as u32,
            options.as_mut_ptr(),
            values.as_mut_ptr(),
            &mut raw,
        )
    };
    rc.result().map_err(|e| fail("cuLinkCreate", e, &[]))?;
    let state = State(raw);
    // SAFETY: the PTX and name are NUL-terminated and live across the call (the driver copies).
    let rc = unsafe {
        sys::cuLinkAddData_v2(
            state.0,
            sys::CUjitInputType::CU_JIT_INPUT_PTX,
            ptx.as_ptr() as *mut c_void,
            ptx.to_bytes_with_nul().len(),
            name.as_ptr(),
            0,
            core::ptr::null_mut(),
            core::ptr::null_mut(),
        )
    };
    if let Err(e) = rc.result() {
        drop(state);
        return Err(fail("cuLinkAddData", e, &log));
    }
    for library in libraries {
        // SAFETY: the path is NUL-terminated; the driver reads the file during the call.
        let rc = unsafe {
            sys::cuLinkAddFile_v2(
                state.0,
                sys::CUjitInputType::CU_JIT_INPUT_LIBRARY,
                library.as_ptr(),
                0,
                core::ptr::null_mut(),
                core::ptr::null_mut(),
            )
        };
        if let Err(e) = rc.result() {
            drop(state);
            return Err(fail("cuLinkAddFile", e, &log));
        }
    }
    let (mut cubin, mut size): (*mut c_void, usize) = (core::ptr::null_mut(), 0);
    // SAFETY: the state is live; the cubin it returns lives until cuLinkDestroy.
    let rc = unsafe { sys::cuLinkComplete(state.0, &mut cubin, &mut size) };
    if let Err(e) = rc.result() {
        drop(state);
        return Err(fail("cuLinkComplete", e, &log));
    }
    // SAFETY: `size` bytes at `cubin`, owned by the state, which is still live.
    let image = unsafe { core::slice::from_raw_parts(cubin as *const u8, size) }.to_vec();
    drop(state);
    Ok(image)
}
