// A buffer a node of a graph built by hand writes stays borrowed mutably until the graph is
// dropped: the host cannot read it while a replay may write it.
use chevron::Graph;

fn main() -> Result<(), chevron::Error> {
    let ctx = chevron::context(0)?;
    let stream = ctx.new_stream()?;
    let mut y = stream.alloc_zeros::<u32>(256)?;
    let (mut graph, ()) = unsafe {
        Graph::build(&ctx, |b| {
            b.memset(&[], &mut y, 7u32)?;
            Ok(())
        })
    }?;
    graph.replay(&stream)?;
    let host = stream.clone_dtoh(&y)?; // the replay may still be writing `y`
    drop(graph);
    assert_eq!(host[0], 7);
    Ok(())
}
