//! Dropping the completions of launches that already ran: the warning says what is lost (the
//! wait and the errors), not that the launches did not happen, and how to keep them.
#![deny(unused_must_use)]
use chevron::cudarc::driver::CudaStream;
use std::sync::Arc;
use chevron::DeviceSet;

fn run(set: &DeviceSet, stream: &Arc<CudaStream>) -> Result<(), chevron::Error> {
    set.launch(|_device| Ok(()))?;
    chevron::completion(stream);
    Ok(())
}

fn main() {
    let _ = run;
}
