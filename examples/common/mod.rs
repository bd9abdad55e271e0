//! How every example ends: one line on stderr for a failure and an exit code a script can test.
//! (A directory with `mod.rs` rather than `examples/common.rs`, which Cargo would take for an
//! example of its own.)

use std::error::Error;
use std::process::ExitCode;

/// The exit code of an example on a machine without a CUDA driver.
pub const NO_DRIVER: u8 = 2;

/// Exit code 0 for `Ok`; otherwise prints `error: …` with the error's own text (not the `Debug`
/// form that a `main` returning `Result` would print) and returns [`NO_DRIVER`] for
/// `chevron::Error::NoDriver`, 1 for any other failure.
pub fn exit_code(result: Result<(), Box<dyn Error>>) -> ExitCode {
    let Err(e) = result else {
        return ExitCode::SUCCESS;
    };
    eprintln!("error: {e}");
    match e.downcast_ref::<chevron::Error>() {
        Some(chevron::Error::NoDriver) => ExitCode::from(NO_DRIVER),
        _ => ExitCode::FAILURE,
    }
}
