//! The "coarse" and "coarse-poll" workloads of internal/bench/coarse.go with
//! rayon::join (rust-rayon), sequentially (rust-seq), and with no scheduler
//! (rust-counter: threads take the leaves from an atomic counter): a binary join tree
//! over 64 heavy-tailed CPU leaves (0.2-8 ms, ~100 ms in all), the same
//! leaves and the same spin loop as the Go version, so the result is the
//! same number. rayon has no poll points: both workloads run alike.
//!
//! Usage: coarse-rayon IMPL WORKLOAD SEED THREADS [REPS [WARM]]
//! (IMPL: rust-seq, rust-rayon or rust-counter)
//! Prints one line per timed iteration: impl workload size threads ms result

use std::sync::atomic::{AtomicUsize, Ordering};
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

/// rust-counter: the leaves on `threads` threads that take them from an
/// atomic counter in index order, no scheduler and no tree (the Go side's
/// go-counter, internal/bench/coarse.go).
fn counter(t: &[u64], threads: usize) -> u64 {
    let next = AtomicUsize::new(0);
    std::thread::scope(|s| {
        let hs: Vec<_> = (0..threads)
            .map(|_| {
                s.spawn(|| {
                    let mut x = 0u64;
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        if i >= t.len() {
                            return x;
                        }
                        x ^= spin(t[i], i as u64 + 1);
                    }
                })
            })
            .collect();
        hs.into_iter().fold(0, |x, h| x ^ h.join().unwrap())
    })
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
        "rust-rayon" | "rust-counter" => true,
        _ => die(&format!("unknown impl {:?} (rust-seq, rust-rayon or rust-counter)", imp)),
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
        let r = match imp {
            "rust-rayon" => pool.install(|| par(&t, 0, t.len())),
            "rust-counter" => counter(&t, threads),
            _ => seq(&t, 0, t.len()),
        };
        let ms = t0.elapsed().as_secs_f64() * 1e3;
        if i >= warm {
            println!("{} {} {} {} {:.3} {}", imp, args[1], seed, threads, ms, r);
        }
    }
}
