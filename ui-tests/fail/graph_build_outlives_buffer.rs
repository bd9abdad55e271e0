// A graph built by hand cannot outlive a buffer its nodes use: the build's body is kept in the
// graph, with the borrow of every buffer it gives its memset, copy and kernel nodes.
use chevron::Graph;

fn main() -> Result<(), chevron::Error> {
    let ctx = chevron::context(0)?;
    let stream = ctx.new_stream()?;
    let x = stream.alloc_zeros::<f32>(256)?;
    let mut graph;
    {
        let mut y = stream.alloc_zeros::<f32>(256)?;
        (graph, ()) = unsafe {
            Graph::build(&ctx, |b| {
                let zero = b.memset(&[], &mut y, 0.0f32)?;
                b.memcpy(&[zero], &mut y, &x)?;
                Ok(())
            })
        }?;
    } // `y` is freed here, while the graph would still write it
    graph.replay(&stream)
}
