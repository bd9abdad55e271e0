// Built with `--no-default-features --features cuda-12000`: kernel nodes of a graph built by
// hand (captured after given nodes, `cuStreamBeginCaptureToGraph`) name the feature that has
// them (CUDA 12.3); the other kinds of node compile.
use chevron::Graph;

fn main() -> Result<(), chevron::Error> {
    let ctx = chevron::context(0)?;
    let stream = ctx.new_stream()?;
    let mut y = stream.alloc_zeros::<u32>(256)?;
    let (_graph, ()) = unsafe {
        Graph::build(&ctx, |b| {
            let set = b.memset(&[], &mut y, 1u32)?;
            b.kernel(&[set], |_capture| Ok(()))?;
            Ok(())
        })
    }?;
    Ok(())
}
