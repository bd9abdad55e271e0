// A config that refers to an event cannot outlive it.
use chevron::cudarc::driver::CudaContext;
use chevron::{CompletionEvent, LaunchConfig};
use std::sync::Arc;

fn config(ctx: &Arc<CudaContext>) -> LaunchConfig<'static> {
    let event = ctx.new_event(None).unwrap();
    LaunchConfig::new(1, 32).with(CompletionEvent(&event))
}

fn main() {
    let _ = config;
}
