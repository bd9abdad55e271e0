use super::body::{forbidden_node, BODY_TYPES};
use super::*;

#[test]
fn body_types_are_the_drivers_list() {
    use crate::sys::CUgraphNodeType as T;
    let allowed = [
        T::CU_GRAPH_NODE_TYPE_KERNEL,
        T::CU_GRAPH_NODE_TYPE_MEMCPY,
        T::CU_GRAPH_NODE_TYPE_MEMSET,
        T::CU_GRAPH_NODE_TYPE_GRAPH,
        T::CU_GRAPH_NODE_TYPE_EMPTY,
        #[cfg(cuda_12030)]
        T::CU_GRAPH_NODE_TYPE_CONDITIONAL,
    ];
    for t in allowed {
        assert!(BODY_TYPES.contains(&(t as u32)), "{t:?}");
    }
    for t in [3u32, 6, 7, 8, 9, 10, 11, 12] {
        assert!(!BODY_TYPES.contains(&t));
        assert!(!forbidden_node(t).contains("does not know"), "{t}");
    }
}

#[test]
fn a_handle_is_the_64_bit_value() {
    assert_eq!(core::mem::size_of::<ConditionalHandle<'static>>(), 8);
    let h = ConditionalHandle {
        raw: 0x1234_5678_9abc_def0,
        _capture: PhantomData,
    };
    assert_eq!(h.raw(), 0x1234_5678_9abc_def0);
    // SAFETY: repr(transparent) over the u64.
    let bits: u64 = unsafe { core::mem::transmute(h) };
    assert_eq!(bits, 0x1234_5678_9abc_def0);
}
