//! The builder's checks that need no driver: dependencies, memset values, host calls.

use super::*;

fn node(builder: u64, raw: usize) -> BuiltNode {
    BuiltNode {
        builder,
        node: raw as sys::CUgraphNode,
    }
}

fn message(e: Error) -> String {
    match e {
        Error::Graph { message, .. } => message,
        other => panic!("expected Error::Graph, got {other:?}"),
    }
}

#[test]
fn dependencies_keep_order_and_drop_repeats() {
    assert_eq!(
        dependencies(7, &[]).unwrap(),
        Vec::<sys::CUgraphNode>::new()
    );
    let deps = dependencies(
        7,
        &[node(7, 0x30), node(7, 0x10), node(7, 0x30), node(7, 0x20)],
    )
    .unwrap();
    let raw: Vec<usize> = deps.into_iter().map(|n| n as usize).collect();
    assert_eq!(raw, [0x30, 0x10, 0x20]);
}

#[test]
fn a_node_of_another_builder_is_refused_with_its_position() {
    let e = dependencies(7, &[node(7, 0x10), node(8, 0x20)]).unwrap_err();
    let text = message(e);
    assert!(
        text.starts_with("dependency 1 is a node of another graph builder"),
        "{text}"
    );
    // Even a node whose handle this builder also has: the builder is what counts.
    assert!(dependencies(7, &[node(9, 0x10)]).is_err());
}

#[test]
fn builder_ids_never_meet_capture_ids() {
    let a = NEXT_ID.fetch_add(1, Ordering::Relaxed);
    let b = NEXT_ID.fetch_add(1, Ordering::Relaxed);
    assert!(a >= 1 << 63 && b > a, "{a:#x} {b:#x}");
}

#[test]
fn memset_values_are_their_bits_in_the_low_bytes() {
    assert_eq!(0xabu8.__chevron_bits(), 0xab);
    assert_eq!((-1i8).__chevron_bits(), 0xff);
    assert_eq!((-2i16).__chevron_bits(), 0xfffe);
    assert_eq!(0x1234u16.__chevron_bits(), 0x1234);
    assert_eq!((-1i32).__chevron_bits(), 0xffff_ffff);
    assert_eq!(1.0f32.__chevron_bits(), 0x3f80_0000);
}

#[test]
fn a_host_call_runs_the_function_and_counts_its_panic() {
    let mut calls = 0u32;
    let panics = Arc::new(AtomicU32::new(0));
    {
        let mut call = HostCall {
            f: Box::new(|| {
                calls += 1;
                if calls == 2 {
                    panic!("the second call panics");
                }
            }),
            panics: panics.clone(),
        };
        let data = &mut call as *mut HostCall<'_> as *mut c_void;
        for _ in 0..3 {
            // SAFETY: `data` is a live `HostCall`, called from one thread at a time.
            unsafe { call_host(data) };
        }
    }
    assert_eq!(calls, 3, "called again after the panic");
    assert_eq!(panics.load(Ordering::Relaxed), 1);
}
