//! The anchors' Mandelbrot 1000 (anchors/rust: rows in parallel with
//! rayon's par_iter, with_max_len(1)), every row timed inside the parallel
//! run, as internal/bench's BenchmarkMandelLost times worksteal's. Prints
//! Go benchmark lines with the same metrics, so scripts/mandel-lost.sh can
//! put the two side by side (benchstat -col /impl):
//!
//!   wall-ms        the run's wall time
//!   lost-ms        threads x wall - the rows' time, summed over the threads
//!   start-ms       from the run's start to each thread's first row
//!   between-ms     between a row's end and the next row's start on a thread
//!   end-ms         from each thread's last row to the run's end
//!   gaps-over-100us  between-gaps longer than 100 us
//!
//! Each line is the mean over RUNS runs after one warm-up run, as the Go
//! benchmark's metrics are.
//!
//! Usage: mandel-lost-rayon THREADS RUNS [COUNT]

use rayon::prelude::*;
use std::sync::atomic::{AtomicI64, Ordering};
use std::time::Instant;

const SIZE: usize = 1000;
const RESULT: i64 = 247_626_198; // the anchors' checksum for size 1000
const MAX_ITER: u32 = 1000;

// The anchors' mandel_row, unchanged (LLVM unrolls its escape loop by two).
fn mandel_row(py: usize, size: usize) -> i64 {
    let ci = -1.0 + (2.5 * py as f64) / size as f64;
    let mut sum = 0i64;
    for px in 0..size {
        let cr = -2.0 + (2.5 * px as f64) / size as f64;
        let (mut x, mut y) = (0.0f64, 0.0f64);
        let mut i = 0;
        while i < MAX_ITER {
            let x2 = x * x;
            let y2 = y * y;
            if x2 + y2 > 4.0 {
                break;
            }
            y = 2.0 * x * y + ci;
            x = x2 - y2 + cr;
            i += 1;
        }
        sum += i as i64;
    }
    sum
}

/// One thread's record of a run, in ns since the program's start; written
/// only by its thread during the run (relaxed atomics: the pool's join at
/// the run's end orders them before the reads), on a cache line of its own.
#[repr(align(64))]
#[derive(Default)]
struct Slot {
    first: AtomicI64,
    last: AtomicI64,
    busy: AtomicI64,
    between: AtomicI64,
    big: AtomicI64,
}

fn arg(i: usize, name: &str, default: Option<usize>) -> usize {
    match std::env::args().nth(i) {
        Some(s) => s.parse().unwrap_or_else(|_| {
            eprintln!("mandel-lost-rayon: {} {:?} is not a count", name, s);
            std::process::exit(2)
        }),
        None => default.unwrap_or_else(|| {
            eprintln!("usage: mandel-lost-rayon THREADS RUNS [COUNT]");
            std::process::exit(2)
        }),
    }
}

fn main() {
    let threads = arg(1, "THREADS", None);
    let runs = arg(2, "RUNS", None);
    let count = arg(3, "COUNT", Some(1));
    if threads < 1 || runs < 1 || count < 1 {
        eprintln!("mandel-lost-rayon: THREADS, RUNS and COUNT must be at least 1");
        std::process::exit(2);
    }
    let procs = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1);
    let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
    let base = Instant::now();
    let now = || base.elapsed().as_nanos() as i64;
    let slots: Vec<Slot> = (0..threads).map(|_| Slot::default()).collect();
    for _ in 0..count {
        let (mut wall, mut lost, mut start, mut between, mut end, mut big) = (0i64, 0i64, 0i64, 0i64, 0i64, 0i64);
        for r in 0..=runs {
            for s in &slots {
                for a in [&s.first, &s.last, &s.busy, &s.between, &s.big] {
                    a.store(0, Ordering::Relaxed);
                }
            }
            let t0 = now();
            let got: i64 = pool.install(|| {
                (0..SIZE)
                    .into_par_iter()
                    .with_max_len(1)
                    .map(|py| {
                        let s = now();
                        let v = mandel_row(py, SIZE);
                        let e = now();
                        let sl = &slots[rayon::current_thread_index().unwrap()];
                        let last = sl.last.load(Ordering::Relaxed);
                        if last == 0 {
                            sl.first.store(s, Ordering::Relaxed);
                        } else {
                            sl.between.fetch_add(s - last, Ordering::Relaxed);
                            if s - last > 100_000 {
                                sl.big.fetch_add(1, Ordering::Relaxed);
                            }
                        }
                        sl.last.store(e, Ordering::Relaxed);
                        sl.busy.fetch_add(e - s, Ordering::Relaxed);
                        v
                    })
                    .sum()
            });
            let t1 = now();
            if got != RESULT {
                eprintln!("mandel-lost-rayon: result {} != {}", got, RESULT);
                std::process::exit(1);
            }
            if r == 0 {
                continue; // the warm-up run
            }
            wall += t1 - t0;
            for sl in &slots {
                let last = sl.last.load(Ordering::Relaxed);
                if last == 0 {
                    lost += t1 - t0;
                    start += t1 - t0;
                    continue;
                }
                lost += t1 - t0 - sl.busy.load(Ordering::Relaxed);
                start += sl.first.load(Ordering::Relaxed) - t0;
                between += sl.between.load(Ordering::Relaxed);
                end += t1 - last;
                big += sl.big.load(Ordering::Relaxed);
            }
        }
        let ms = |v: i64| v as f64 / 1e6 / runs as f64;
        println!(
            "BenchmarkMandelLost/impl=rayon/leaf=unrolled/workers={}-{}\t{}\t{} ns/op\t{:.4} between-ms/op\t{:.4} end-ms/op\t{:.3} gaps-over-100us/op\t{:.4} lost-ms/op\t{:.4} start-ms/op\t{:.4} wall-ms/op",
            threads,
            procs,
            runs,
            wall / runs as i64,
            ms(between),
            ms(end),
            big as f64 / runs as f64,
            ms(lost),
            ms(start),
            ms(wall)
        );
    }
}
