// The worksteal dashboard: draws the JSON state the server sends over
// server-sent events (/events), at most one message per interval. No
// framework and no build step: the file is embedded in the binary.
"use strict";

const $ = (id) => document.getElementById(id);
const esc = (s) => String(s ?? "").replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c]));
const numFormat = new Intl.NumberFormat("en-US"); // one formatter: toLocaleString makes one per call
const num = (n) => numFormat.format(Number(n || 0));

function dur(s) {
  if (s == null || s < 0 || !isFinite(s)) return "?";
  if (s < 1) return (s * 1000).toFixed(0) + " ms";
  if (s < 60) return s.toFixed(s < 10 ? 1 : 0) + " s";
  if (s < 3600) return Math.floor(s / 60) + " m " + String(Math.round(s % 60)).padStart(2, "0") + " s";
  return Math.floor(s / 3600) + " h " + String(Math.floor((s % 3600) / 60)).padStart(2, "0") + " m";
}

function pct(x) { return (100 * Math.max(0, Math.min(1, x || 0))).toFixed(0) + "%"; }

function utilBar(u) {
  return `<div class="util" title="${pct(u)} busy"><div><i style="width:${pct(u)}"></i></div><span>${pct(u)}</span></div>`;
}

function summary(items) {
  $("summary").innerHTML = items.map(([v, label, id]) => `<div${id ? ` id="${id}"` : ""}><b>${v}</b><span>${esc(label)}</span></div>`).join("");
}

function rows(tbody, list, empty, cols) {
  tbody.innerHTML = list.length ? list.join("") : `<tr class="empty"><td colspan="${cols}">${esc(empty)}</td></tr>`;
}

// A worker's recent tasks on a shared time axis, drawn on a canvas (100
// rows of SVG rectangles cost the browser several times more): finished
// tasks in green or red, running ones in blue, stragglers in orange.
const colors = (() => {
  const cs = getComputedStyle(document.documentElement);
  const v = (n) => cs.getPropertyValue(n).trim();
  return { ok: v("--ok"), fail: v("--fail"), run: v("--run"), slow: v("--warn") };
})();

function drawTimelines(workers, now, span, slow) {
  const canvases = document.querySelectorAll("#workers canvas.tl");
  if (!canvases.length) return;
  const width = canvases[0].clientWidth, ratio = window.devicePixelRatio || 1;
  canvases.forEach((c, i) => {
    const w = workers[i];
    c.width = Math.max(1, Math.round(width * ratio));
    c.height = Math.round(14 * ratio);
    const g = c.getContext("2d");
    g.scale(ratio, ratio);
    const x = (t) => Math.max(0, Math.min(width, width - ((now - t) / span) * width));
    const bar = (a, b, color) => { g.fillStyle = color; g.fillRect(a, 2, Math.max(1, b - a), 10); };
    for (const s of w.timeline || []) bar(x(s.start_ms), x(s.start_ms + s.ms), s.ok ? colors.ok : colors.fail);
    for (const t of w.tasks || []) bar(x(Date.parse(t.start)), width, slow.has(t.job + "/" + t.task) ? colors.slow : colors.run);
  });
}

function drawCluster(st) {
  $("cluster").hidden = false;
  $("pool").hidden = true;
  const note = $("note");
  note.hidden = !st.note;
  note.textContent = st.note || "";
  // The recorder's refused and discarded messages, by role and reason.
  const ref = Object.entries(st.refusals || {}).sort();
  $("refusals").hidden = ref.length === 0;
  $("refusals").textContent = "refused or discarded: " + ref.map(([k, n]) => k + " " + n).join(", ");
  const up = st.workers.filter((w) => w.status === "up");
  const lost = st.workers.filter((w) => w.status === "lost");
  const slots = up.reduce((a, w) => a + w.slots, 0);
  const rate = st.jobs.reduce((a, j) => a + (j.finished ? 0 : j.rate), 0);
  summary([
    [num(up.length), "workers up", "sum-up"],
    [num(lost.length), "lost", "sum-lost"],
    [num(slots), "slots"],
    [num(st.running), "running"],
    [num(st.queued), "queued"],
    [rate.toFixed(rate < 10 ? 1 : 0) + "/s", "throughput"],
    [num(st.redeliveries), "redeliveries"],
    [num(st.stragglers.length), "stragglers", "sum-stragglers"],
  ]);

  rows($("jobs"), st.jobs.map((j) => {
    const t = Math.max(1, j.total);
    const done = j.succeeded + j.failed;
    return `<tr data-job="${esc(j.id)}" class="${j.finished ? "finished" : ""}">
      <td class="text">${esc(j.id)}${j.reduce ? ` <span class="reduce" title="reduced with ${esc(j.reduce)}: the value is not shown, the observer may not read results">${esc(j.reduce)}</span>` : ""}${j.waiting ? `<div class="waiting" data-waiting="${esc(j.id)}">waits: ${esc(j.waiting)}</div>` : ""}</td>
      <td class="bar"><div class="progress" title="${j.succeeded} ok, ${j.failed} failed, ${j.running} running of ${j.total}">
        <i class="ok" style="width:${(100 * j.succeeded) / t}%"></i><i class="fail" style="width:${(100 * j.failed) / t}%"></i><i class="run" style="width:${(100 * j.running) / t}%"></i></div></td>
      <td class="done">${num(done)}/${num(j.total)}</td><td>${num(j.failed)}</td><td>${num(j.running)}</td><td>${num(j.queued)}</td><td class="handed">${num(j.handed || 0)}</td><td>${num(j.retries)}</td><td>${num(j.reruns)}</td>
      <td>${j.rate.toFixed(j.rate < 10 ? 1 : 0)}/s</td><td>${j.finished ? "done" : dur(j.eta_s)}</td><td>${j.median_s ? dur(j.median_s) : "–"}</td><td>${dur(j.elapsed_s)}</td></tr>`;
  }), "no jobs yet", 13);

  $("straggler-rule").textContent = `(running over ${Math.round(st.straggler_factor * 100)}% of the job's median)`;
  const slow = new Set(st.stragglers.map((s) => s.job + "/" + s.task));
  rows($("stragglers"), st.stragglers.map((s) => `<tr class="straggler" data-straggler="${esc(s.job)}/${esc(s.task)}">
      <td class="text">${esc(s.job)}</td><td class="text">${esc(s.task)}</td><td class="text">${esc(s.worker)}</td><td>${s.attempt}</td>
      <td>${dur(s.running_s)}</td><td>${dur(s.median_s)}</td><td class="ratio">×${s.ratio.toFixed(1)}</td></tr>`), "no stragglers", 7);

  // The time axis: as far back as the oldest task shown, 10 s to 60 s.
  const now = Date.parse(st.time);
  let oldest = now;
  for (const w of st.workers) {
    for (const s of w.timeline || []) oldest = Math.min(oldest, s.start_ms);
    for (const t of w.tasks || []) oldest = Math.min(oldest, Date.parse(t.start));
  }
  const span = Math.min(60000, Math.max(10000, Math.ceil((now - oldest) / 10000) * 10000));
  $("tl-span").textContent = span / 1000 + " s";
  rows($("workers"), st.workers.map((w) => {
    const labels = Object.entries(w.labels || {}).map(([k, v]) => `${k}=${v}`).concat(w.handlers || []).join(" · ");
    return `<tr data-worker="${esc(w.name)}" data-status="${esc(w.status)}" class="${esc(w.status)}">
      <td class="text">${esc(w.name)}</td><td class="text"><span class="badge ${esc(w.status)}">${esc(w.status)}</span></td>
      <td>${w.slots}</td><td class="running">${w.running}</td><td class="bar">${utilBar(w.utilization)}</td>
      <td>${num(w.executed)}</td><td>${num(w.failures)}</td><td>${num(w.redelivered)}</td>
      <td class="spawned">${num(w.spawned || 0)}</td><td class="spilled">${num(w.spilled || 0)}</td>
      <td>${dur(w.silent_s)} ago</td><td class="labels" title="${esc(labels)}">${esc(labels)}</td>
      <td class="timeline"><canvas class="tl"></canvas></td></tr>`;
  }), "no workers seen yet", 13);
  drawTimelines(st.workers, now, span, slow);
}

function drawPool(st) {
  $("cluster").hidden = true;
  $("pool").hidden = false;
  summary([
    [num(st.workers.length), "workers"],
    [pct(st.utilization), "utilization"],
    [num(Math.round(st.tasks_per_s)) + "/s", "tasks executed"],
    [(st.steal_rate * 100).toFixed(1) + "%", "steal rate"],
    [st.imbalance.toFixed(2), "load imbalance"],
  ]);
  rows($("pool-workers"), st.workers.map((w) => `<tr data-worker="${w.worker}">
      <td>${w.worker}</td><td class="bar">${utilBar(w.utilization)}</td><td>${num(w.executed)}</td><td>${num(w.stolen)}</td>
      <td>${num(w.stolen_from)}</td><td>${num(Math.round(w.steals_per_s))}</td><td>${num(w.parks)}</td><td>${num(Math.round(w.parks_per_s))}</td><td>${dur(w.busy_s)}</td></tr>`),
    "no workers", 9);
}

// draw redraws the page from one state; the body's data attributes count
// the updates and time the drawing (tests and benchmarks read them).
function draw(st) {
  const t0 = performance.now();
  $("clock").textContent = new Date(st.time).toLocaleTimeString();
  if (st.kind === "cluster") drawCluster(st);
  else if (st.kind === "pool") drawPool(st);
  const b = document.body.dataset;
  b.updates = String(Number(b.updates || 0) + 1);
  b.drawMs = String(Number(b.drawMs || 0) + performance.now() - t0);
  b.time = st.time;
}

function connect() {
  const conn = $("conn");
  const es = new EventSource("events");
  es.onopen = () => { conn.textContent = "live"; conn.className = "conn on"; };
  es.onerror = () => { conn.textContent = "reconnecting"; conn.className = "conn off"; };
  // Coalesce: if messages arrive faster than the page draws (a slow
  // machine, a hidden tab), only the latest is parsed and drawn, so the page
  // never works through a backlog of old states.
  let latest = null;
  let pending = false;
  const flush = () => {
    pending = false;
    if (latest === null || document.hidden) return;
    const data = latest;
    latest = null;
    try { draw(JSON.parse(data)); } catch (err) { console.error(err); }
  };
  es.onmessage = (e) => {
    latest = e.data;
    if (!pending) { pending = true; setTimeout(flush, 0); }
  };
  document.addEventListener("visibilitychange", () => { if (!pending) { pending = true; setTimeout(flush, 0); } });
}

fetch("api/config").then((r) => r.json()).then((c) => {
  document.title = c.title;
  $("title").textContent = c.title;
}).catch(() => {});
// The first paint does not wait for the event stream (a proxy may buffer
// it, its first event may come late on a loaded server): the state is
// fetched at once and drawn unless an event has drawn one already.
fetch("api/state").then((r) => r.json()).then((st) => {
  if (!document.body.dataset.updates) draw(st);
}).catch(() => {});
connect();
