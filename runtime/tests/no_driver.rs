//! Without a CUDA driver, chevron returns `Error::NoDriver` instead of panicking.
//! CI has no GPU and no driver, so there this test checks the error; on a GPU machine it checks
//! that the same call succeeds.

use chevron_cuda_runtime::{context, driver_present, ensure_driver, Error};

#[test]
fn context_reports_a_missing_driver_as_a_typed_error() {
    match (driver_present(), context(0)) {
        (false, Err(Error::NoDriver)) => {
            assert!(matches!(ensure_driver(), Err(Error::NoDriver)));
            let msg = Error::NoDriver.to_string();
            assert!(msg.contains("no CUDA driver"), "{msg}");
        }
        (false, other) => panic!("no driver, but context(0) gave {other:?}"),
        (true, Ok(ctx)) => assert!(ensure_driver().is_ok() && ctx.ordinal() == 0),
        // A driver library without a usable GPU (e.g. a container with the driver mounted but
        // no device): still a typed error naming the call, not a panic.
        (true, Err(e @ Error::Driver { call, .. })) => {
            assert_eq!(call, "cuCtxCreate");
            assert!(e.to_string().starts_with("cuCtxCreate failed"), "{e}");
        }
        (true, Err(e)) => panic!("driver present, but context(0) failed with {e:?}"),
    }
}
