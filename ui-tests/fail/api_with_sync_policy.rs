// The plain Rust API rejects a stream-only kind as a launch attribute.
use chevron::{LaunchConfig, SyncPolicy};

fn main() {
    let _cfg = LaunchConfig::new(1, 32).with(SyncPolicy::Spin);
}
