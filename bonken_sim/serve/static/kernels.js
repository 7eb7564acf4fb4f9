// The first start after an install compiles the computer players' kernels in the background:
// while it does, the page says so with the progress (GET /api/status), and a request the
// server answered 503 (it needs a kernel) is sent again once they are ready.
"use strict";

const KERNELS_POLL_MS = 500;
let kernelsWait = null;    // the one promise every waiting request shares

function kernelsBox() { return document.getElementById("kernels"); }

function showKernels(st) {
  const box = kernelsBox();
  box.dataset.state = st.state;
  if (st.state === "ready") { box.hidden = true; box.replaceChildren(); return; }
  box.hidden = false;
  if (st.state === "failed") {
    box.replaceChildren(el("strong", {}, "The computer players could not be compiled: "), st.error,
      el("br"), "No game can start. The terminal where bonken-sim serve runs says more; start it again to retry.");
    return;
  }
  const what = st.state === "loading" ? "loading them" : `now ${st.part || "starting"}, ${st.functions} functions compiled`;
  box.replaceChildren(
    el("strong", {}, "Compiling the computer players for this machine"),
    ` (the first start after an install does this once; ${Math.round(st.seconds)} s so far). `,
    el("progress", { max: st.total, value: st.done }),
    ` part ${Math.min(st.done + 1, st.total)} of ${st.total}: ${what}. `,
    "A game you start now begins as soon as they are ready.");
}

async function kernelStatus() {
  const resp = await fetch("/api/status");
  if (!resp.ok) throw new Error("HTTP " + resp.status + " from /api/status");
  return resp.json();
}

// Resolves once the kernels are ready (at once if they are); rejects if compiling failed.
function kernelsReady(st) {
  if (st && st.ready) return Promise.resolve();
  if (!kernelsWait) {
    kernelsWait = (async () => {
      let now = st || await kernelStatus();
      for (;;) {
        showKernels(now);
        if (now.ready) return;
        if (now.state === "failed") throw new Error("compiling the kernels failed: " + now.error);
        await new Promise((r) => setTimeout(r, KERNELS_POLL_MS));
        try { now = await kernelStatus(); } catch (err) { /* the server restarting: ask again */ }
      }
    })();
    kernelsWait.catch(() => {}).then(() => { kernelsWait = null; });
  }
  return kernelsWait;
}

// Shown from the start, before any game is asked for.
kernelsReady().catch(() => {});
