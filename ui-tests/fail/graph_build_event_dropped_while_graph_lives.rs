// An event node's event is borrowed until the graph is dropped: destroying it while a replay
// may still record it does not compile.
use chevron::Graph;

fn main() -> Result<(), chevron::Error> {
    let ctx = chevron::context(0)?;
    let stream = ctx.new_stream()?;
    let done = ctx.new_event(None)?;
    let (mut graph, ()) = unsafe {
        Graph::build(&ctx, |b| {
            b.record(&[], &done)?;
            Ok(())
        })
    }?;
    graph.replay(&stream)?;
    drop(done); // the replay may still record it
    drop(graph);
    Ok(())
}
