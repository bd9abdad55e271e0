// The plain Rust API rejects a launch-only kind as a stream attribute.
use chevron::{Cooperative, LaunchConfig};

fn main() {
    let _cfg = LaunchConfig::new(1, 32).with_stream(Cooperative);
}
