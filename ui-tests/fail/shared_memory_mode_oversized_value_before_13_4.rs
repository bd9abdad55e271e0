// `AllowOversized` came with CUDA 13.4: with the default feature (cuda-13000) it still names
// something, whose type names the feature.
use chevron::{FunctionSharedMemoryMode, SharedMemoryMode};

fn main() {
    let mode = FunctionSharedMemoryMode(SharedMemoryMode::AllowOversized);
    let _ = mode;
}
