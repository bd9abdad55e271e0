// Built with `--no-default-features --features cuda-12000`: the id of a kind of a later CUDA
// version fails to evaluate with the message of the kind's row, naming the feature that has it.
use chevron::{Attribute, NvlinkCentric};

const ID: chevron::sys::CUlaunchAttributeID = <NvlinkCentric as Attribute>::ID;

fn main() {
    println!("{:?}", ID);
}
