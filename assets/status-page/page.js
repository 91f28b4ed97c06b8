// The status page's live updates: the server streams the status document (/events, Server-Sent
// Events) and this rebuilds the instance table from it. Every value is set as textContent, never
// as HTML: instance ids and error messages come from plugins and upstream servers. Without this
// script the page still reads; a reload shows the present.
(() => {
  const live = document.getElementById("live");
  const body = document.querySelector("#instances tbody");
  const summary = document.getElementById("summary");
  const sessions = document.getElementById("sessions");
  if (!live || !body || !summary || !sessions || typeof EventSource !== "function") return;
  const ms = (v) => (v === null || v === undefined ? "\u2013" : `${v} ms`);

  const row = (i) => {
    const health = i.healthy ? "healthy" : "unhealthy";
    const values = {
      id: i.id,
      plugin: i.plugin,
      state: i.state,
      health,
      restarts: i.restarts,
      calls: i.calls,
      errors: i.errors,
      p50: ms(i.p50Ms),
      p99: ms(i.p99Ms),
      refused: i.clientRequests ? i.clientRequests.refused : 0,
      error: i.error ? `${i.error.code}: ${i.error.message}` : "",
    };
    const tr = document.createElement("tr");
    tr.dataset.id = String(i.id);
    tr.className = health;
    for (const [field, value] of Object.entries(values)) {
      const td = document.createElement("td");
      td.dataset.field = field;
      td.textContent = String(value);
      tr.append(td);
    }
    return tr;
  };

  live.textContent = "Connecting for live updates\u2026";
  const source = new EventSource("/events");
  source.onmessage = (event) => {
    const data = JSON.parse(event.data);
    body.replaceChildren(...data.instances.map(row));
    summary.textContent = data.summary;
    sessions.textContent = data.sessions;
    live.textContent = `Live: updated ${new Date().toLocaleTimeString()}.`;
  };
  source.onerror = () => {
    live.textContent = "Live updates paused (the server is unreachable, or you were signed out); reload the page.";
  };
})();
