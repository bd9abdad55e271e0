use super::*;

fn node() -> GraphNode {
    GraphNode {
        capture: 1,
        slot: 0,
        node: core::ptr::null_mut(),
        // SAFETY: a plain C struct of integers and pointers, for which zero is valid.
        params: unsafe { core::mem::zeroed() },
    }
}

fn node_at(slot: u32) -> GraphNode {
    GraphNode { slot, ..node() }
}

/// The record's bytes as the driver would read them through its pointers.
fn read(ptrs: &[*mut c_void], sizes: &[u32]) -> Vec<Vec<u8>> {
    ptrs.iter()
        .zip(sizes)
        .map(|(&p, &size)| {
            // SAFETY: `size` bytes of the record.
            unsafe { core::slice::from_raw_parts(p as *const u8, size as usize) }.to_vec()
        })
        .collect()
}

#[test]
fn a_record_is_its_pointers_then_its_bytes_from_a_line() {
    static SIZES: [u32; 5] = [4, 4, 8, 2, 12];
    let mut records = Records::new();
    let ptrs = records.add(&node(), &SIZES);
    let base = ptrs.as_ptr() as usize;
    assert_eq!(base % 64, 0, "a record starts on a cache line");
    let offsets: Vec<usize> = ptrs.iter().map(|&p| p as usize - base).collect();
    assert_eq!(offsets, [40, 44, 48, 56, 58], "5 pointers, then the bytes");
    assert_eq!(records.lines.len(), 2, "40 + 30 bytes: two lines");
    // A four-parameter kernel of 4- and 8-byte parameters: 32 + 24 bytes, one line.
    static SAXPY: [u32; 4] = [4, 4, 8, 8];
    records.add(&node_at(1), &SAXPY);
    assert_eq!(records.lines.len(), 3);
    assert!(records.get(1, 3).is_none(), "another parameter count");
    assert!(records.get(2, 4).is_none(), "no record");
}

#[test]
fn records_keep_their_bytes_and_pointers_when_the_storage_moves() {
    static SIZES: [u32; 4] = [4, 4, 8, 8];
    let mut records = Records::new();
    let nodes = 100u32;
    for slot in 0..nodes {
        let ptrs = records.add(&node_at(slot), &SIZES);
        let (mut a, mut b, mut c, mut d) = (slot, slot + 1, u64::from(slot) << 32, 7u64);
        let params = [
            &mut a as *mut u32 as *mut c_void,
            &mut b as *mut u32 as *mut c_void,
            &mut c as *mut u64 as *mut c_void,
            &mut d as *mut u64 as *mut c_void,
        ];
        // SAFETY: each parameter points at its size's bytes.
        unsafe { record(&params, ptrs, &SIZES, None) };
    }
    assert!(records.lines.capacity() >= nodes as usize);
    for slot in 0..nodes {
        let (ptrs, sizes) = records.get(slot, 4).expect("recorded");
        let base = ptrs.as_ptr() as usize;
        assert!(
            ptrs.iter().all(|&p| (p as usize) - base < 64),
            "in its own line"
        );
        let want = [
            slot.to_ne_bytes().to_vec(),
            (slot + 1).to_ne_bytes().to_vec(),
            (u64::from(slot) << 32).to_ne_bytes().to_vec(),
            7u64.to_ne_bytes().to_vec(),
        ];
        assert_eq!(read(ptrs, sizes), want, "slot {slot}");
    }
    let written: Vec<usize> = records.each().map(|(_, _, p)| p as usize).collect();
    assert_eq!(written.len(), nodes as usize);
    assert_eq!(written[5], records.get(5, 4).unwrap().0.as_ptr() as usize);
    records.clear();
    assert!(records.get(0, 4).is_none());
    assert_eq!(records.each().count(), 0);
}

#[test]
fn a_record_copies_every_parameter_or_only_those_not_kept() {
    static SIZES: [u32; 5] = [4, 4, 8, 2, 12];
    let mut records = Records::new();
    records.add(&node(), &SIZES);
    let (mut n, mut a, mut x, mut h, mut s) = (7u32, 2.5f32, 0xdead_beef_u64, 9u16, [3u8; 12]);
    let params = [
        &mut n as *mut u32 as *mut c_void,
        &mut a as *mut f32 as *mut c_void,
        &mut x as *mut u64 as *mut c_void,
        &mut h as *mut u16 as *mut c_void,
        s.as_mut_ptr() as *mut c_void,
    ];
    let (ptrs, sizes) = records.get(0, 5).unwrap();
    // SAFETY: each parameter points at its size's bytes.
    unsafe { record(&params, ptrs, sizes, None) };
    let want = |n: u32, a: f32, x: u64, h: u16, s: [u8; 12]| {
        vec![
            n.to_ne_bytes().to_vec(),
            a.to_ne_bytes().to_vec(),
            x.to_ne_bytes().to_vec(),
            h.to_ne_bytes().to_vec(),
            s.to_vec(),
        ]
    };
    assert_eq!(read(ptrs, sizes), want(7, 2.5, 0xdead_beef, 9, [3; 12]));
    // SAFETY: each parameter points at its local, written through it only from here on.
    unsafe {
        *(params[0] as *mut u32) = 8;
        *(params[1] as *mut f32) = -1.0;
        *(params[2] as *mut u64) = 0x1234;
        *(params[3] as *mut u16) = 10;
        *(params[4] as *mut [u8; 12]) = [4; 12];
    }
    let keep = [false, true, true, false, true];
    // SAFETY: as above; the kept ones are not read.
    unsafe { record(&params, ptrs, sizes, Some(&keep)) };
    assert_eq!(read(ptrs, sizes), want(8, 2.5, 0xdead_beef, 10, [3; 12]));
    // A parameter that is the record's own bytes (a kept one passed through) stays as is.
    let own = [params[0], params[1], ptrs[2], params[3], params[4]];
    // SAFETY: as above; entry 2 points at the record's own 8 bytes.
    unsafe { record(&own, ptrs, sizes, None) };
    assert_eq!(read(ptrs, sizes), want(8, -1.0, 0xdead_beef, 10, [4; 12]));
}
