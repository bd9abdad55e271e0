// Building a graph is `unsafe` for the reason capturing is: a leaked graph (`mem::forget`)
// would end its borrows without waiting for its last replay.
use chevron::Graph;

fn main() -> Result<(), chevron::Error> {
    let ctx = chevron::context(0)?;
    let stream = ctx.new_stream()?;
    let mut y = stream.alloc_zeros::<u32>(256)?;
    let (mut graph, ()) = Graph::build(&ctx, |b| {
        b.memset(&[], &mut y, 0u32)?;
        Ok(())
    })?;
    graph.replay(&stream)?;
    std::mem::forget(graph); // ends the borrow of `y` without waiting for the replay
    drop(y); // would free `y` while the replay may still write it
    Ok(())
}
