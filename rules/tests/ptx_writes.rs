//! Which pointer parameters a kernel writes through, as the reader finds it in real nvcc 13.0
//! output (rules/tests/fixtures/writes.cu, release and `-G`, relocatable): directly, through
//! helpers, in structs by value, through returned pointers, by atomics, in loops and recursion,
//! and unknown where the pointer goes to code the file does not hold; and (fixtures/stores.cu)
//! tensor-core and matrix stores, pointers through local arrays and shared memory, a
//! `const_cast`, and calls through a function pointer.

use chevron_cuda_rules::ptx::{self, Callee, Entry, Fact, WriteDoubt};

fn read(path: &str) -> Vec<Entry> {
    let full = format!("{}/tests/fixtures/{path}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&full).unwrap_or_else(|e| panic!("{full}: {e}"));
    ptx::parse_entries(&text).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn writes(entries: &[Entry], name: &str) -> Vec<Fact> {
    let e = entries
        .iter()
        .find(|e| e.name == name)
        .unwrap_or_else(|| panic!("no entry {name}"));
    assert_eq!(e.writes.len(), e.params.len(), "{name}");
    e.writes.iter().map(|s| s.fact()).collect()
}

use Fact::{No, Unknown, Yes};

/// The same answers for the release build and `-G`.
#[test]
fn release_and_debug_builds() {
    for file in ["writes.ptx", "writes_debug.ptx"] {
        let es = read(file);
        let w = |name| writes(&es, name);
        assert_eq!(w("helper_write"), [Yes, No, No], "{file}");
        assert_eq!(w("atomic_count"), [Yes, No, No], "{file}");
        assert_eq!(w("select_write"), [Yes, Yes, No, No], "{file}");
        assert_eq!(w("loop_ptr"), [Yes, No, No], "{file}");
        assert_eq!(w("reads_only"), [No, Yes, No], "{file}");
        assert_eq!(w("pair_write"), [No, Yes, Yes, No], "{file}");
        assert_eq!(w("recursive"), [Yes, No], "{file}");
        // Written here as well as given away: a yes wins.
        assert_eq!(w("external"), [Yes, No], "{file}");
        assert_eq!(w("external_only"), [Unknown], "{file}");
        assert_eq!(w("stores_pointer"), [Unknown, Yes], "{file}");
    }
}

/// Stores beyond `st`/`atom`/`red`, pointers through memory, and calls not followed: the same
/// answers for the release build and `-G`.
#[test]
fn matrix_stores_memory_flow_and_unseen_calls() {
    for file in ["stores.ptx", "stores_debug.ptx"] {
        let es = read(file);
        let w = |name| writes(&es, name);
        assert_eq!(w("wmma_store"), [No, No, Yes], "{file}");
        assert_eq!(w("stmatrix_store"), [Yes, No], "{file}");
        assert_eq!(w("local_array"), [Yes, Yes, Yes, No], "{file}");
        assert_eq!(w("shared_handout"), [Yes, No], "{file}");
        assert_eq!(w("indirect"), [Unknown, No], "{file}");
        assert_eq!(w("extern_only"), [Unknown], "{file}");
        // C++: the `const float*` written after a `const_cast`, the `float*` only read.
        assert_eq!(w("_Z14cpp_const_castPKfPfS1_"), [Yes, No, Yes], "{file}");
    }
}

/// An unknown says why: the call it cannot follow, or the store that gives the pointer away.
#[test]
fn unknown_writes_name_the_reason() {
    for file in ["stores.ptx", "stores_debug.ptx"] {
        let es = read(file);
        let doubt = |name: &str, k: usize| {
            let e = es.iter().find(|e| e.name == name).expect("entry");
            assert_eq!(e.write_doubts.len(), e.params.len(), "{name}");
            e.write_doubts[k].clone()
        };
        match doubt("indirect", 0) {
            Some(WriteDoubt::Call(call)) => assert_eq!(call.callee, Callee::Indirect, "{file}"),
            other => panic!("{file}: indirect: {other:?}"),
        }
        match doubt("extern_only", 0) {
            Some(WriteDoubt::Call(call)) => assert_eq!(
                call.callee,
                Callee::Named {
                    name: "_Z9elsewherePf".into(),
                    external: true
                },
                "{file}"
            ),
            other => panic!("{file}: extern_only: {other:?}"),
        }
        assert_eq!(doubt("indirect", 1), None, "{file}");
        assert_eq!(doubt("wmma_store", 2), None, "{file}");
    }
    let es = read("writes.ptx");
    let e = es
        .iter()
        .find(|e| e.name == "stores_pointer")
        .expect("entry");
    assert!(
        matches!(e.write_doubts[0], Some(WriteDoubt::Stored(_))),
        "{:?}",
        e.write_doubts
    );
    let text = e.write_doubts[0].as_ref().map(WriteDoubt::describe);
    assert!(
        text.as_deref()
            .is_some_and(|t| t.starts_with("stores the pointer to memory")),
        "{text:?}"
    );
}

/// A write found in a helper names the helper and the line of the store.
#[test]
fn sites_name_the_store() {
    let full = format!("{}/tests/fixtures/writes.ptx", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(full).expect("fixture");
    let es = ptx::parse_entries(&text).expect("parses");
    let e = es.iter().find(|e| e.name == "helper_write").expect("entry");
    let site = e.writes[0].site().expect("written");
    // Relocatable code calls a module-local copy of the helper, `_Z3putPfif$6`.
    assert!(
        site.func
            .as_deref()
            .is_some_and(|f| f.starts_with("_Z3putPfif")),
        "{site:?}"
    );
    let line = text.lines().nth(site.line - 1).expect("line");
    assert!(line.trim_start().starts_with("st.global.f32"), "{line}");
    let e = es.iter().find(|e| e.name == "atomic_count").expect("entry");
    let site = e.writes[0].site().expect("written");
    assert_eq!(site.func, None);
    let line = text.lines().nth(site.line - 1).expect("line");
    assert!(line.trim_start().starts_with("atom.global.add"), "{line}");
}

/// The kernels of the repository: saxpy writes `y` only.
#[test]
fn saxpy_writes_y() {
    let full = format!("{}/../kernels/saxpy.ptx", env!("CARGO_MANIFEST_DIR"));
    let es = ptx::parse_entries(&std::fs::read_to_string(full).expect("saxpy")).expect("parses");
    assert_eq!(writes(&es, "saxpy"), [No, No, No, Yes]);
}

/// Hand-written forms: vector stores, stack slots through a register, a parameter whose
/// address is taken, bulk copies to global memory.
#[test]
fn hand_written_forms() {
    let src = ".version 9.0\n.target sm_90\n.address_size 64\n\
        .visible .entry k(.param .u64 k_param_0, .param .u64 k_param_1, .param .u64 k_param_2,\n\
          .param .u64 k_param_3, .param .u64 k_param_4)\n{\n\
          .reg .b64 %SP; .reg .b64 %SPL; .reg .b64 %rd<20>; .reg .f32 %f<4>;\n\
          mov.u64 %SPL, __local_depot0;\n\
          cvta.local.u64 %SP, %SPL;\n\
          ld.param.u64 %rd1, [k_param_0];\n\
          ld.param.u64 %rd2, [k_param_1];\n\
          ld.param.u64 %rd3, [k_param_2];\n\
          ld.param.u64 %rd4, [k_param_3];\n\
          st.global.v2.f32 [%rd1+8], {%f1, %f2};\n\
          add.u64 %rd5, %SP, 16;\n\
          st.u64 [%rd5+8], %rd2;\n\
          ld.u64 %rd6, [%SP+24];\n\
          @%p1 st.global.f32 [%rd6], %f1;\n\
          ld.global.f32 %f3, [%rd3];\n\
          mov.b64 %rd7, k_param_4;\n\
          cp.async.bulk.global.shared::cta.bulk_group [%rd4], [%rd9], 64;\n\
          ret;\n}\n";
    let es = ptx::parse_entries(src).expect("parses");
    assert_eq!(writes(&es, "k"), [Yes, Yes, No, Yes, Unknown]);
}

/// Hand-written forms beyond `st`: `discard`, `tensormap.replace`, a surface store, a generic
/// `wmma.store` without a state space; a pointer walking a local array of pointers (a register
/// given a second stack offset); a `wmma.load` is no write.
#[test]
fn hand_written_matrix_surface_and_local_forms() {
    let src = ".version 9.0\n.target sm_90\n.address_size 64\n\
        .visible .entry k(.param .u64 k_param_0, .param .u64 k_param_1, .param .u64 k_param_2,\n\
          .param .u64 k_param_3, .param .u64 k_param_4, .param .u64 k_param_5,\n\
          .param .u64 k_param_6, .param .u64 k_param_7)\n{\n\
          .local .align 8 .b8 __local_depot0[16];\n\
          .reg .b64 %SPL; .reg .b64 %rd<30>; .reg .f32 %f<9>; .reg .b32 %r<9>;\n\
          mov.u64 %SPL, __local_depot0;\n\
          ld.param.u64 %rd1, [k_param_0];\n\
          ld.param.u64 %rd2, [k_param_1];\n\
          ld.param.u64 %rd3, [k_param_2];\n\
          ld.param.u64 %rd4, [k_param_3];\n\
          ld.param.u64 %rd5, [k_param_4];\n\
          ld.param.u64 %rd6, [k_param_5];\n\
          ld.param.u64 %rd7, [k_param_6];\n\
          ld.param.u64 %rd8, [k_param_7];\n\
          discard.global.L2 [%rd1], 128;\n\
          tensormap.replace.tile.global_address.global.b1024.b64 [%rd2], %rd9;\n\
          sust.b.1d.b32.trap [%rd3, {%r1}], {%r2};\n\
          wmma.store.d.sync.aligned.row.m16n16k16.f32 [%rd4], {%f1, %f2, %f3, %f4, %f5, %f6, %f7, %f8}, %r3;\n\
          wmma.load.a.sync.aligned.row.m16n16k16.global.f16 {%r1, %r2}, [%rd5], %r3;\n\
          add.u64 %rd10, %SPL, 0;\n\
          st.local.u64 [%rd10], %rd6;\n\
          st.local.u64 [%rd10+8], %rd7;\n\
          $L__BB0_1:\n\
          ld.local.u64 %rd11, [%rd12];\n\
          st.global.f32 [%rd11], %f1;\n\
          add.u64 %rd12, %SPL, 0;\n\
          add.u64 %rd12, %rd12, 8;\n\
          @%p1 bra $L__BB0_1;\n\
          ld.global.f32 %f2, [%rd8];\n\
          ret;\n}\n";
    let es = ptx::parse_entries(src).expect("parses");
    assert_eq!(writes(&es, "k"), [Yes, Yes, Yes, Yes, No, Yes, Yes, No]);
}
