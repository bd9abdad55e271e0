//! A data-parallel training step over every GPU of the machine: each GPU computes the gradient
//! of its shard of the batch (`dp_grad`), NCCL sums the gradients over the GPUs (all-reduce,
//! through cudarc's bindings), each GPU applies the summed gradient to its copy of the weights
//! (`dp_update`). The step is captured in one graph per device (all devices' streams capturing at
//! once, the all-reduce of every rank in one NCCL group) and replayed; without capture, run
//! directly. The model is linear with one weight per feature, trained on a fixed batch; the
//! weights after one step and after all steps are checked against a host reference (in f64),
//! and the step time is measured with 1, 2, … N GPUs sharing the same batch, with the
//! all-reduce alone timed beside it.
//!
//! NCCL (`libnccl.so.2`) is loaded at run time: without it, the one-GPU run goes on without the
//! all-reduce (over one rank the sum is the rank's own gradient) and says so; more GPUs need it.
//!
//! `cargo run --release --example data_parallel`. Exit code 0 when the checks pass, 2 on a
//! machine without a CUDA driver (one `error: …` line), 1 for any other failure.

mod common;

use std::error::Error;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant};

use chevron::cudarc::driver::{CudaSlice, CudaStream};
use chevron::cudarc::nccl::{group_end, group_start, Comm, ReduceOp};
use chevron::{config, kernel, DeviceSet, Graph, LaunchConfig};

/// g[j] = Σ over this GPU's samples of x[i][j]·(w[j]·x[i][j] − y[i][j]).
#[kernel(ptx = "kernels/data_parallel.ptx")]
fn dp_grad(
    samples: u32,
    features: u32,
    w: &CudaSlice<f32>,
    x: &CudaSlice<f32>,
    y: &CudaSlice<f32>,
    g: &mut CudaSlice<f32>,
);

/// w[j] −= scale·g[j].
#[kernel(ptx = "kernels/data_parallel.ptx")]
fn dp_update(features: u32, scale: f32, g: &CudaSlice<f32>, w: &mut CudaSlice<f32>);

/// Learning rate: each step takes the weights a few percent closer to the optimum, so the
/// result after every step count is distinct.
const RATE: f64 = 0.02;

fn main() -> ExitCode {
    common::exit_code(run())
}

/// The batch, on the host: `samples` rows of `features` values.
struct Batch {
    samples: usize,
    features: usize,
    x: Vec<f32>,
    y: Vec<f32>,
}

impl Batch {
    /// x in {1, 2, 3, 4}, y = w*·x + noise in {−¼, 0, ¼}, w*[j] in {−1, −¾, …, 1}: exact in f32.
    fn new(samples: usize, features: usize) -> Self {
        let mut x = Vec::with_capacity(samples * features);
        let mut y = Vec::with_capacity(samples * features);
        for i in 0..samples {
            for j in 0..features {
                let xi = 1.0 + ((i * 7 + j * 3) % 4) as f32;
                let target = ((j % 9) as f32 - 4.0) / 4.0;
                let noise = (((i + 2 * j) % 3) as f32 - 1.0) / 4.0;
                x.push(xi);
                y.push(target * xi + noise);
            }
        }
        Self {
            samples,
            features,
            x,
            y,
        }
    }

    /// The weights after `steps` full-batch steps from 0, in f64: g[j] = w[j]·S[j] − T[j] with
    /// S[j] = Σ x², T[j] = Σ x·y over the whole batch.
    fn reference(&self, steps: usize) -> Vec<f64> {
        let f = self.features;
        let (mut s, mut t) = (vec![0f64; f], vec![0f64; f]);
        for i in 0..self.samples {
            for j in 0..f {
                let (x, y) = (f64::from(self.x[i * f + j]), f64::from(self.y[i * f + j]));
                s[j] += x * x;
                t[j] += x * y;
            }
        }
        let scale = RATE / self.samples as f64;
        let mut w = vec![0f64; f];
        for _ in 0..steps {
            for j in 0..f {
                w[j] -= scale * (w[j] * s[j] - t[j]);
            }
        }
        w
    }
}

/// One device's part: its shard of the batch, its copy of the weights, its gradient.
struct Shard {
    samples: u32,
    x: CudaSlice<f32>,
    y: CudaSlice<f32>,
    w: CudaSlice<f32>,
    g: CudaSlice<f32>,
}

/// The step on every device: gradients, the all-reduce, updates. Without communicators (no libnccl, one device) the gradient stays local.
fn step(
    streams: &[Arc<CudaStream>],
    shards: &mut [Shard],
    comms: Option<&[Comm]>,
    features: u32,
    scale: f32,
) -> Result<(), chevron::Error> {
    let cfg = config!(<<<features.div_ceil(256), 256>>>);
    for (stream, s) in streams.iter().zip(shards.iter_mut()) {
        // SAFETY: one thread per feature; the shard holds `samples` rows of `features` values.
        unsafe {
            dp_grad::kernel().launch(
                stream,
                &cfg,
                (s.samples, features, &s.w, &s.x, &s.y, &mut s.g),
            )
        }?;
    }
    if let Some(comms) = comms {
        all_reduce(comms, shards)?;
    }
    for (stream, s) in streams.iter().zip(shards.iter_mut()) {
        // SAFETY: as above.
        unsafe { dp_update::kernel().launch(stream, &cfg, (features, scale, &s.g, &mut s.w)) }?;
    }
    Ok(())
}

/// Sums the gradients over the devices, in place: one NCCL group, since one thread drives every
/// rank.
fn all_reduce(comms: &[Comm], shards: &mut [Shard]) -> Result<(), chevron::Error> {
    group_start()?;
    let mut result: Result<(), chevron::Error> = Ok(());
    for (comm, s) in comms.iter().zip(shards.iter_mut()) {
        if let Err(e) = comm.all_reduce_in_place(&mut s.g, &ReduceOp::Sum) {
            result = Err(e.into());
            break;
        }
    }
    // Closed even after a failure: a group left open would hold back every later collective.
    let end = group_end();
    result?;
    end?;
    Ok(())
}

/// Captures `work` into one graph per stream, every stream capturing while it runs (the graphs
/// nest: stream 0's capture holds stream 1's, …, and the innermost runs `work`).
fn capture_all<'a, W>(
    streams: &'a [Arc<CudaStream>],
    work: W,
) -> Result<Vec<Graph<'a>>, chevron::Error>
where
    W: FnOnce() -> Result<(), chevron::Error> + 'a,
{
    let Some((first, rest)) = streams.split_first() else {
        work()?;
        return Ok(Vec::new());
    };
    let mut work = Some(work);
    let (graph, mut inner) = unsafe {
        Graph::capture(first, move |_| match work.take() {
            Some(work) => capture_all(rest, work),
            None => Err(chevron::Error::Graph {
                kernel: Default::default(),
                message: "the capture body ran twice".into(),
            }),
        })
    }?;
    inner.insert(0, graph);
    Ok(inner)
}

/// What the steps of one GPU count run on.
struct Run<'s> {
    set: &'s DeviceSet,
    streams: &'s [Arc<CudaStream>],
    comms: Option<&'s [Comm]>,
    features: u32,
    scale: f32,
}

impl Run<'_> {
    /// Runs `warm` then `steps` steps on every device, replaying one graph per device
    /// (`use_graphs`, captured once) or launching directly, waiting for every device after each
    /// part; returns the time of the `steps` part.
    fn steps(
        &self,
        shards: &mut [Shard],
        warm: usize,
        steps: usize,
        use_graphs: bool,
    ) -> Result<Duration, chevron::Error> {
        let (streams, comms) = (self.streams, self.comms);
        let (features, scale) = (self.features, self.scale);
        if use_graphs {
            let mut graphs =
                capture_all(streams, || step(streams, shards, comms, features, scale))?;
            let mut replay = |times: usize| -> Result<Duration, chevron::Error> {
                let t = Instant::now();
                for _ in 0..times {
                    for (graph, stream) in graphs.iter_mut().zip(streams) {
                        graph.replay(stream)?;
                    }
                }
                self.set.completion().wait()?;
                Ok(t.elapsed())
            };
            replay(warm)?;
            let took = replay(steps)?;
            drop(graphs);
            Ok(took)
        } else {
            let mut direct = |times: usize| -> Result<Duration, chevron::Error> {
                let t = Instant::now();
                for _ in 0..times {
                    step(streams, shards, comms, features, scale)?;
                }
                self.set.completion().wait()?;
                Ok(t.elapsed())
            };
            direct(warm)?;
            direct(steps)
        }
    }
}

/// Compares every device's weights with the reference.
fn check(
    set: &DeviceSet,
    shards: &[Shard],
    want: &[f64],
    what: &str,
) -> Result<f64, Box<dyn Error>> {
    let mut worst = 0f64;
    for dev in set {
        let w = dev.stream().clone_dtoh(&shards[dev.index()].w)?;
        for (j, (got, want)) in w.iter().zip(want).enumerate() {
            let err = (f64::from(*got) - want).abs();
            worst = worst.max(err);
            if err > 1e-4 * (1.0 + want.abs()) {
                return Err(format!(
                    "{what}: device {} w[{j}] = {got}, the host reference {want}",
                    dev.ordinal()
                )
                .into());
            }
        }
    }
    Ok(worst)
}

fn run() -> Result<(), Box<dyn Error>> {
    chevron::ensure_driver()?;
    let all = DeviceSet::all()?;
    common::announce_quick();
    let (features, samples, steps) = if common::quick() {
        (1024u32, 16usize, 2usize)
    } else {
        (1u32 << 16, 1024usize, 20usize)
    };
    let nccl = chevron::nccl_present();
    println!(
        "{} device(s): {}; NCCL {}",
        all.len(),
        all.iter()
            .map(|d| format!(
                "{} ({})",
                d.ordinal(),
                d.context().name().unwrap_or_default()
            ))
            .collect::<Vec<_>>()
            .join(", "),
        if nccl {
            "loaded"
        } else {
            "not found (libnccl.so.2)"
        }
    );
    println!(
        "batch: {samples} samples × {features} features ({} MiB of x and y), {steps} steps timed",
        (2 * samples * features as usize * 4) >> 20
    );
    let batch = Batch::new(samples, features as usize);
    let after_one = batch.reference(1);
    let after_all = batch.reference(2 + steps);
    let scale = (RATE / samples as f64) as f32;
    let f = features as usize;

    let mut rows = Vec::new();
    let mut base = None;
    for k in 1..=all.len() {
        if k > 1 && !nccl {
            println!("SKIPPED {k} GPUs: the all-reduce needs NCCL (libnccl.so.2), not found");
            break;
        }
        let set = DeviceSet::new(0..k)?;
        let cfg: LaunchConfig = config!(<<<features.div_ceil(256), 256>>>);
        set.check(|ctx| dp_grad::kernel().function(ctx), &cfg)?;
        set.check(|ctx| dp_update::kernel().function(ctx), &cfg)?;
        let comms = if nccl { Some(set.nccl()?) } else { None };
        if !nccl {
            println!(
                "note: 1 GPU without NCCL: no all-reduce (over one rank it would return the \
                 rank's own gradient)"
            );
        }
        // Device d takes rows [start, end) of the batch.
        let mut shards = set.map(|dev| {
            let d = dev.index();
            let (start, end) = (samples * d / k, samples * (d + 1) / k);
            let s = dev.stream();
            Ok(Shard {
                samples: (end - start) as u32,
                x: s.clone_htod(&batch.x[start * f..end * f])?,
                y: s.clone_htod(&batch.y[start * f..end * f])?,
                w: s.alloc_zeros::<f32>(f)?,
                g: s.clone_htod(&vec![f32::NAN; f])?,
            })
        })?;
        let streams: Vec<Arc<CudaStream>> = set.iter().map(|d| d.stream().clone()).collect();
        let comms = comms.as_deref();

        let run = Run {
            set: &set,
            streams: &streams,
            comms,
            features,
            scale,
        };
        // One step, checked: the all-reduce must have summed every shard's gradient. Captured
        // where the driver and NCCL allow it (a failed capture ran nothing), else direct.
        let use_graphs = match run.steps(&mut shards, 0, 1, true) {
            Ok(_) => true,
            Err(e) => {
                println!("note: no graph capture on {k} device(s) ({e}): direct launches");
                run.steps(&mut shards, 0, 1, false)?;
                false
            }
        };
        check(&set, &shards, &after_one, "after 1 step")?;
        // One more step to warm up, then the timed ones (capture excluded).
        let took = run.steps(&mut shards, 1, steps, use_graphs)?;
        let per_step = took.as_secs_f64() * 1e3 / steps as f64;
        let worst = check(&set, &shards, &after_all, "after all steps")?;

        // The all-reduce alone, as often as the steps ran it.
        let reduce = match comms {
            Some(comms) => {
                let t = Instant::now();
                for _ in 0..steps {
                    all_reduce(comms, &mut shards)?;
                }
                set.completion().wait()?;
                Some(t.elapsed().as_secs_f64() * 1e3 / steps as f64)
            }
            None => None,
        };
        let base_ms = *base.get_or_insert(per_step);
        rows.push((k, per_step, base_ms / per_step, reduce, use_graphs, worst));
        drop(shards);
    }

    println!();
    println!("| GPUs | samples per GPU | time per step | speed-up | all-reduce alone | all-reduce share | graphs | max |w − w_ref| |");
    println!("|---|---|---|---|---|---|---|---|");
    for (k, per_step, speedup, reduce, graphs, worst) in &rows {
        let (reduce, share) = match reduce {
            Some(r) => (
                format!("{r:.3} ms"),
                format!("{:.0}%", 100.0 * r / per_step),
            ),
            None => ("(no NCCL)".into(), "–".into()),
        };
        println!(
            "| {k} | {} | {per_step:.3} ms | {speedup:.2}× | {reduce} | {share} | {} | {worst:.1e} |",
            samples / k,
            if *graphs { "yes" } else { "no" }
        );
    }
    println!();
    println!(
        "checked: on every GPU count, every device's weights after 1 step and after {} steps equal \
         the host reference (f64) within 1e-4 relative",
        2 + steps
    );
    Ok(())
}
