use fastrs::Message;
use std::hint::black_box;
use std::time::Instant;
fn main() {
    for depth in [16usize, 64, 128, 192, 256, 512] {
        let built = fastrs_bench::data::nested_message(depth);
        let mut m = fastrs_bench::fast::bench::nested::Node::default();
        if std::env::var("DECODED").is_ok() {
            m.fast_read_with_limit(&built.encode_to_vec(), depth as u32 + 1)
                .unwrap();
        } else {
            m = built;
        }
        let mut buf = Vec::with_capacity(100000);
        let mut best = (f64::MAX, f64::MAX);
        for _ in 0..15 {
            let n = 200000 / depth * 16;
            let t = Instant::now();
            for _ in 0..n {
                black_box(black_box(&m).size());
            }
            let size_ns = t.elapsed().as_nanos() as f64 / n as f64 / depth as f64;
            let t = Instant::now();
            for _ in 0..n {
                buf.clear();
                black_box(&m).encode_append(&mut buf);
                black_box(&buf);
            }
            let all_ns = t.elapsed().as_nanos() as f64 / n as f64 / depth as f64;
            best = (best.0.min(size_ns), best.1.min(all_ns));
        }
        println!(
            "depth {depth}: size {:.1} ns/level, size+write {:.1} ns/level",
            best.0, best.1
        );
    }
}
