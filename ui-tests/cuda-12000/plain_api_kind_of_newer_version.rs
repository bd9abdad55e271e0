// Built with `--no-default-features --features cuda-12000`: the type exists, its use names the
// feature that has it.
use chevron::{LaunchConfig, NvlinkCentric};

fn main() {
    let cfg = LaunchConfig::new(1, 32).with(NvlinkCentric);
    println!("{cfg:?}");
}
