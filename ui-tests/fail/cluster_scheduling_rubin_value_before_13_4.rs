// `RubinDsmemLocality` came with CUDA 13.4: with the default feature (cuda-13000) the key's
// value is refused naming the feature, and the plain API's constant is of a type that names it.
use chevron::cudarc::driver::{CudaFunction, CudaStream};
use chevron::{launch, ClusterScheduling, LaunchConfig};

fn run(s: &CudaStream, f: &CudaFunction) -> Result<(), chevron::Error> {
    unsafe {
        launch!(dyn f<<<8, 128, s, cluster = 2, cluster_scheduling = RubinDsmemLocality>>>())
    }?;
    let policy: ClusterScheduling = ClusterScheduling::RubinDsmemLocality;
    let _ = LaunchConfig::new(8, 128).with(policy);
    Ok(())
}

fn main() {}
