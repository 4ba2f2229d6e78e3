//! `make bench`: runs the suite and prints the table; with `--out FILE` also
//! writes it there. `splice RESULTS README` (`make stats`) replaces the table
//! between the `<!-- bench:start -->` and `<!-- bench:end -->` markers.

use fastrs_bench::harness::{Counting, Settings};
use fastrs_bench::suite;

#[global_allocator]
static ALLOC: Counting = Counting;

fn main() -> std::io::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("splice") {
        let [_, results, readme] = args.as_slice() else {
            eprintln!("usage: fastrs-bench splice RESULTS README");
            std::process::exit(2);
        };
        return splice(results, readme);
    }
    let quick = args.iter().any(|a| a == "--quick");
    let settings = if quick { Settings::QUICK } else { Settings::FULL };
    // `--filter NAME` measures only the workload of that name; `--filter ~TEXT`
    // the workloads whose names contain TEXT.
    let filter = args
        .iter()
        .position(|a| a == "--filter")
        .and_then(|i| args.get(i + 1))
        .cloned();
    let rows = suite::run(settings, |w| {
        let selected = filter
            .as_deref()
            .is_none_or(|f| f.strip_prefix('~').map_or(w == f, |t| w.contains(t)));
        if selected {
            eprintln!("measuring {w}");
        }
        selected
    });
    let table = suite::table(&rows);
    println!("{table}");
    if let Some(i) = args.iter().position(|a| a == "--out") {
        let path = args.get(i + 1).expect("--out needs a file");
        let header = format!(
            "Measured {} on {} ({} cores); medians of {} interleaved samples.\n\n",
            date(),
            machine(),
            std::thread::available_parallelism().map_or(1, |n| n.get()),
            settings.rounds
        );
        std::fs::write(path, header + &table)?;
    }
    Ok(())
}

fn splice(results: &str, readme: &str) -> std::io::Result<()> {
    let table = std::fs::read_to_string(results)?;
    let text = std::fs::read_to_string(readme)?;
    let (start, end) = ("<!-- bench:start -->", "<!-- bench:end -->");
    let (Some(a), Some(b)) = (text.find(start), text.find(end)) else {
        eprintln!("{readme} has no {start} ... {end} markers");
        std::process::exit(1);
    };
    let updated = format!("{}{start}\n{}{}", &text[..a], table, &text[b..]);
    std::fs::write(readme, updated)
}

fn date() -> String {
    std::process::Command::new("date")
        .arg("+%Y-%m-%d")
        .output()
        .ok()
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .map_or_else(|| "unknown date".into(), |s| s.trim().to_string())
}

fn machine() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|c| {
            c.lines()
                .find(|l| l.starts_with("model name"))
                .map(|l| l.split(':').nth(1).unwrap_or("").trim().to_string())
        })
        .unwrap_or_else(|| std::env::consts::ARCH.to_string())
}

#[cfg(test)]
mod tests {
    /// Every benchmark body runs once (no timing): the harness cannot rot.
    #[test]
    fn every_benchmark_body_runs() {
        let rows = fastrs_bench::suite::run(fastrs_bench::harness::Settings::QUICK, |_| true);
        assert!(rows.len() > 40);
        let table = fastrs_bench::suite::table(&rows);
        assert!(table.contains("Go message") && table.contains("JSON workload"));
    }
}
