//! The "coarse" and "coarse-poll" workloads of internal/bench/coarse.go with
//! rayon::join (rust-rayon) and sequentially (rust-seq): a binary join tree
//! over 64 heavy-tailed CPU leaves (0.2-8 ms, ~100 ms in all), the same
//! leaves and the same spin loop as the Go version, so the result is the
//! same number. rayon has no poll points: both workloads run alike.
//!
//! Usage: coarse-rayon IMPL WORKLOAD SEED THREADS [REPS [WARM]]
//! Prints one line per timed iteration: impl workload size threads ms result

use std::time::Instant;

const LEAVES: u64 = 64;
const ITERS_PER_MS: f64 = 400_000.0;
const POLL_EVERY: u64 = 10_000;

fn splitmix64(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

fn leaf_iters(seed: u64) -> Vec<u64> {
    (0..LEAVES)
        .map(|i| {
            let u = (splitmix64(seed.wrapping_mul(LEAVES).wrapping_add(i)) >> 11) as f64 / (1u64 << 53) as f64;
            let ms = 0.2 * 40f64.powf(u.powf(1.5));
            (ms * ITERS_PER_MS) as u64
        })
        .collect()
}

#[inline(never)]
fn spin(mut n: u64, mut x: u64) -> u64 {
    while n > 0 {
        let k = n.min(POLL_EVERY);
        for _ in 0..k {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            x ^= x >> 29;
        }
        n -= k;
    }
    x
}

fn seq(t: &[u64], lo: usize, hi: usize) -> u64 {
    if hi - lo == 1 {
        return spin(t[lo], lo as u64 + 1);
    }
    let mid = (lo + hi) / 2;
    seq(t, lo, mid) ^ seq(t, mid, hi)
}

fn par(t: &[u64], lo: usize, hi: usize) -> u64 {
    if hi - lo == 1 {
        return spin(t[lo], lo as u64 + 1);
    }
    let mid = (lo + hi) / 2;
    let (a, b) = rayon::join(|| par(t, lo, mid), || par(t, mid, hi));
    a ^ b
}

fn die(msg: &str) -> ! {
    eprintln!("coarse-rayon: {}", msg);
    std::process::exit(2);
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.len() < 4 || args.len() > 6 {
        die("usage: coarse-rayon IMPL WORKLOAD SEED THREADS [REPS [WARM]]");
    }
    let num = |s: &str| -> u64 { s.parse().unwrap_or_else(|_| die(&format!("bad integer {:?}", s))) };
    let imp = args[0].as_str();
    let parallel = match imp {
        "rust-seq" => false,
        "rust-rayon" => true,
        _ => die(&format!("unknown impl {:?}", imp)),
    };
    if args[1] != "coarse" && args[1] != "coarse-poll" {
        die(&format!("unknown workload {:?} (coarse or coarse-poll)", args[1]));
    }
    let seed = num(&args[2]);
    let threads = num(&args[3]) as usize;
    if threads < 1 || (!parallel && threads != 1) {
        die("threads must be >= 1 (1 for rust-seq)");
    }
    let reps = if args.len() >= 5 { num(&args[4]) } else { 1 };
    let warm = if args.len() >= 6 { num(&args[5]) } else { 1 };
    let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
    let t = leaf_iters(seed);
    for i in 0..warm + reps {
        let t0 = Instant::now();
        let r = if parallel { pool.install(|| par(&t, 0, t.len())) } else { seq(&t, 0, t.len()) };
        let ms = t0.elapsed().as_secs_f64() * 1e3;
        if i >= warm {
            println!("{} {} {} {} {:.3} {}", imp, args[1], seed, threads, ms, r);
        }
    }
}
