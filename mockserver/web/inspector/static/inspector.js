// The inspector's only script. Pages work without it; it adds live refresh and key bindings.
// Live refresh: poll /_mock/ui/state once a second; when its fingerprint changes, fetch the
// page again and swap <main>, unless the reader is typing in a field or has paused it ("p").
// Ids ([data-copy]) copy themselves on a click or Enter.
"use strict";
(function () {
  const main = document.getElementById("main");
  const status = document.getElementById("live-status");
  const clock = document.getElementById("clock-now");
  const live = main && main.dataset.live === "1";
  let seen = main ? main.dataset.fingerprint || null : null;
  let paused = false;
  let busy = false;
  let quietUntil = 0; // a copy's message stays a few seconds before the live status returns

  function say(text) { if (status && Date.now() >= quietUntil) status.textContent = text; }

  function enhance(root) {
    root.querySelectorAll("[data-copy]").forEach(function (el) {
      el.setAttribute("tabindex", "0");
      el.setAttribute("role", "button");
      el.setAttribute("aria-label", "Copy " + el.dataset.copy);
    });
  }

  function copy(text) {
    const done = function (message) { quietUntil = 0; say(message); quietUntil = Date.now() + 3000; };
    if (!navigator.clipboard) { done("Copying needs a secure page; the id is " + text + "."); return; }
    navigator.clipboard.writeText(text).then(
      function () { done("Copied " + text + "."); },
      function () { done("Could not copy; the id is " + text + "."); }
    );
  }

  function typing() {
    const el = document.activeElement;
    return el && (el.tagName === "INPUT" || el.tagName === "SELECT" || el.tagName === "TEXTAREA");
  }

  async function refresh() {
    const response = await fetch(location.href, { headers: { Accept: "text/html" } });
    if (!response.ok) return;
    const doc = new DOMParser().parseFromString(await response.text(), "text/html");
    const fresh = doc.getElementById("main");
    if (fresh) {
      main.innerHTML = fresh.innerHTML;
      main.dataset.fingerprint = fresh.dataset.fingerprint || "";
      enhance(main);
    }
  }

  async function poll() {
    if (busy) return;
    busy = true;
    try {
      const response = await fetch("/_mock/ui/state", { headers: { Accept: "application/json" } });
      if (!response.ok) { say("Live refresh: the server answered " + response.status + "."); return; }
      const state = await response.json();
      if (clock) clock.textContent = state.now;
      if (seen !== null && state.fingerprint !== seen && live && !paused && !typing()) {
        await refresh();
      }
      if (!typing() || seen === null) seen = state.fingerprint;
      say(paused ? "Live refresh paused (p to resume)." : live ? "Live refresh on." : "Clock live.");
    } catch (error) {
      say("Live refresh: the mock is not reachable.");
    } finally {
      busy = false;
    }
  }

  document.addEventListener("click", function (event) {
    const el = event.target.closest && event.target.closest("[data-copy]");
    if (el) copy(el.dataset.copy);
  });

  let prefix = false;
  document.addEventListener("keydown", function (event) {
    if (typing() || event.ctrlKey || event.metaKey || event.altKey) return;
    const copyable = event.target.closest && event.target.closest("[data-copy]");
    if (copyable && event.key === "Enter") { event.preventDefault(); copy(copyable.dataset.copy); return; }
    if (prefix) {
      prefix = false;
      const link = document.querySelector('nav a[data-key="' + event.key + '"]');
      if (link) { event.preventDefault(); link.click(); }
      return;
    }
    if (event.key === "g") { prefix = true; return; }
    if (event.key === "/") {
      const field = document.querySelector("form[role=search] input, form[role=search] select");
      if (field) { event.preventDefault(); field.focus(); }
    } else if (event.key === "p") {
      paused = !paused;
      say(paused ? "Live refresh paused (p to resume)." : "Live refresh on.");
    }
  });

  if (main) enhance(main);
  poll();
  setInterval(poll, 1000);
})();
