// `set_stream_attribute` takes stream-valid kinds only.
use chevron::cudarc::driver::CudaStream;
use chevron::{set_stream_attribute, ClusterDim};

fn configure(stream: &CudaStream) -> Result<(), chevron::Error> {
    set_stream_attribute(stream, ClusterDim::new(2, 1, 1))
}

fn main() {
    let _ = configure;
}
