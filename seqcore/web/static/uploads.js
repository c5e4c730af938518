// FASTQ uploads from the browser (seqcore/web/uploads.py, templates/uploads.mako). The page's
// upload form works without this file; with it, files can be dropped on the area, each pair
// (R1/R2 or 1/2 in the names, as the server pairs them) or single file is sent on its own
// with a progress bar per file, and a group larger than the page's direct-upload threshold
// goes through the direct-upload path: announced, PUT to storage with its MD5, then
// attached. Refusals are shown beside each file in the server's words.
import { Controller } from "@hotwired/stimulus";
import { application } from "seqcore/application";

// The direct-upload path announces each file's MD5, which Web Crypto does not compute:
// hash-wasm's (WebAssembly), loaded by the layout as window.hashwasm, reads the file in chunks.
async function md5Base64(file) {
  const md5 = await window.hashwasm.createMD5();
  md5.init();
  for (let offset = 0; offset < file.size; offset += CHUNK) {
    md5.update(new Uint8Array(await file.slice(offset, offset + CHUNK).arrayBuffer()));
  }
  return btoa(String.fromCharCode(...md5.digest("binary")));
}

// -- pairing by name, as seqcore/files/fastqnames.py does -----------------------------------

const EXTENSION = /\.(?:fastq|fq)(?:\.gz)?$|\.[^.]+$/i;
const READ = /^(.+?)_(R?[12])(_[0-9]{3})?$/;

export function groupFiles(files) {
  const named = files.map((file) => {
    const found = EXTENSION.exec(file.name);
    const base = found && found.index > 0 ? file.name.slice(0, found.index) : file.name;
    const match = READ.exec(base);
    if (!match) return { file, read: null, key: file.name };
    const read = Number(match[2].slice(-1));
    return { file, read, key: `${match[1]}\u0000${match[3] || ""}\u0000${file.name.slice(base.length)}` };
  });
  const mates = new Map();
  named.filter((n) => n.read !== null).forEach((n) => {
    mates.set(n.key, [...(mates.get(n.key) || []), n]);
  });
  const done = new Set();
  const groups = [];
  named.forEach((n) => {
    if (done.has(n)) return;
    const both = n.read === null ? [] : mates.get(n.key);
    if (both.length === 2 && new Set(both.map((m) => m.read)).size === 2) {
      both.sort((x, y) => x.read - y.read);
      groups.push(both.map((m) => m.file));
      both.forEach((m) => done.add(m));
    } else {
      groups.push([n.file]);
      done.add(n);
    }
  });
  return groups;
}

// -- the upload area ------------------------------------------------------------------------

const CHUNK = 4 << 20;

function send(method, url, body, headers, onProgress) {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open(method, url);
    Object.entries(headers).forEach(([name, value]) => xhr.setRequestHeader(name, value));
    if (onProgress) xhr.upload.addEventListener("progress", (event) => onProgress(event.loaded));
    xhr.addEventListener("load", () => resolve(xhr));
    xhr.addEventListener("error", () => reject(new Error(String(xhr.status))));
    xhr.send(body);
  });
}

// The server's words: a JSON message, or the alert of the page it answered with.
function refusal(xhr) {
  try {
    const body = JSON.parse(xhr.responseText);
    return body.problem || body.message || null;
  } catch (error) {
    const doc = new DOMParser().parseFromString(xhr.responseText, "text/html");
    const alert = doc.querySelector("[role=alert]");
    return alert ? alert.textContent.trim() : null;
  }
}

application.register("upload", class extends Controller {
  static targets = ["form", "input", "zone", "dropHint", "list"];
  static values = { directBytes: Number, announce: String, messages: Object };

  connect() {
    this.dropHintTarget.hidden = false;
    this.zoneTarget.classList.add("droppable");
    this.queue = Promise.resolve();
  }

  over(event) {
    event.preventDefault();
    this.zoneTarget.classList.add("over");
  }

  leave() { this.zoneTarget.classList.remove("over"); }

  drop(event) {
    event.preventDefault();
    this.leave();
    this.start([...event.dataTransfer.files]);
  }

  submit(event) {
    event.preventDefault();
    this.start([...this.inputTarget.files]);
    this.inputTarget.value = "";
  }

  get csrf() { return this.formTarget.querySelector("input[name=csrf_token]").value; }

  text(key, values = {}) {
    return Object.entries(values).reduce(
      (message, [name, value]) => message.replace(`\${${name}}`, value), this.messagesValue[key] || key);
  }

  start(files) {
    if (files.length === 0) return;
    groupFiles(files).forEach((group) => {
      const rows = group.map((file) => this.row(file));
      this.queue = this.queue.then(() => this.upload(group, rows)).catch(() => {});
    });
  }

  row(file) {
    const item = document.createElement("li");
    item.dataset.file = file.name;
    const name = document.createElement("span");
    name.className = "upload-name";
    name.textContent = file.name;
    const bar = document.createElement("progress");
    bar.max = 100;
    bar.value = 0;
    bar.setAttribute("aria-label", this.text("progress", { name: file.name }));
    const status = document.createElement("span");
    status.className = "upload-status";
    status.textContent = this.text("waiting");
    item.append(name, " ", bar, " ", status);
    this.listTarget.append(item);
    return { item, bar, status };
  }

  async upload(group, rows) {
    const total = group.reduce((sum, file) => sum + file.size, 0);
    let xhr;
    try {
      if (total > this.directBytesValue) xhr = await this.direct(group, rows);
      else xhr = await this.form(group, rows);
    } catch (error) {
      rows.forEach((row) => this.refused(row, this.text("failed", { status: error.message })));
      return;
    }
    if (xhr === null) return;
    this.answered(xhr, group, rows);
  }

  progress(group, rows, loaded) {
    let before = 0;
    group.forEach((file, k) => {
      const mine = Math.min(Math.max(loaded - before, 0), file.size);
      rows[k].bar.value = file.size ? Math.round((100 * mine) / file.size) : 100;
      before += file.size;
    });
  }

  form(group, rows) {
    const body = new FormData();
    body.append("csrf_token", this.csrf);
    group.forEach((file) => body.append("files", file, file.name));
    rows.forEach((row) => { row.status.textContent = this.text("uploading"); });
    return send("POST", this.formTarget.action, body,
      { Accept: "application/json", "X-CSRF-Token": this.csrf },
      (loaded) => this.progress(group, rows, loaded));
  }

  // Announce each file, PUT its bytes, then have the page attach them to the sample.
  async direct(group, rows) {
    const blobs = [];
    for (let k = 0; k < group.length; k += 1) {
      const file = group[k];
      const row = rows[k];
      row.status.textContent = this.text("checksum");
      const checksum = await md5Base64(file);
      const announce = new FormData();
      announce.append("csrf_token", this.csrf);
      announce.append("filename", file.name);
      announce.append("byte_size", String(file.size));
      announce.append("checksum", checksum);
      announce.append("content_type", file.type || "application/octet-stream");
      const announced = await send("POST", this.announceValue, announce,
        { Accept: "application/json", "X-CSRF-Token": this.csrf });
      if (announced.status !== 201) {
        this.refused(row, refusal(announced) || this.text("failed", { status: announced.status }));
        return null;
      }
      const blob = JSON.parse(announced.responseText);
      row.status.textContent = this.text("uploading");
      const put = await send("PUT", blob.url, file, blob.headers, (loaded) => {
        row.bar.value = Math.round((100 * loaded) / file.size);
      });
      if (put.status !== 204) {
        this.refused(row, refusal(put) || this.text("failed", { status: put.status }));
        return null;
      }
      blobs.push(blob.signedBlobId);
    }
    const attach = new FormData();
    attach.append("csrf_token", this.csrf);
    blobs.forEach((id) => attach.append("blob", id));
    return send("POST", this.formTarget.action, attach,
      { Accept: "application/json", "X-CSRF-Token": this.csrf });
  }

  answered(xhr, group, rows) {
    let outcomes = null;
    try {
      outcomes = JSON.parse(xhr.responseText).outcomes;
    } catch (error) {
      outcomes = null;
    }
    if (!outcomes) {
      const words = refusal(xhr) || this.text("failed", { status: xhr.status });
      rows.forEach((row) => this.refused(row, words));
      return;
    }
    let stored = false;
    outcomes.forEach((outcome) => {
      outcome.files.forEach((name) => {
        const row = rows[group.findIndex((file) => file.name === name)];
        if (!row) return;
        if (outcome.problem) {
          this.refused(row, outcome.problem);
        } else if (xhr.status === 201) {
          row.bar.value = 100;
          row.item.classList.add("stored");
          row.status.textContent = "";
          const words = document.createTextNode(`${this.text("stored")} `);
          row.status.append(words);
          if (outcome.sampleUrl) {
            const link = document.createElement("a");
            link.href = outcome.sampleUrl;
            link.textContent = outcome.sample;
            row.status.append(link);
          }
          stored = true;
        } else {
          this.refused(row, this.text("notKept"));
        }
      });
    });
    if (stored) window.dispatchEvent(new CustomEvent("upload:stored"));
  }

  refused(row, words) {
    row.item.classList.add("refused");
    row.status.textContent = `${this.text("refused")}: ${words}`;
  }
});

// A Turbo frame that reloads itself while the part of the page it holds says something is
// still pending (an element with data-pending: files whose QC the worker has not finished),
// and starts again when watch() is called (after an upload).
application.register("pending", class extends Controller {
  static values = { interval: { type: Number, default: 3000 } };

  connect() {
    this.loaded = () => { if (!this.element.querySelector("[data-pending]")) this.stop(); };
    this.element.addEventListener("turbo:frame-load", this.loaded);
    if (this.element.querySelector("[data-pending]")) this.watch();
  }

  disconnect() {
    this.stop();
    this.element.removeEventListener("turbo:frame-load", this.loaded);
  }

  watch() {
    if (!this.timer) this.timer = setInterval(() => this.reload(), this.intervalValue);
    this.reload();
  }

  reload() {
    if (!this.element.src) this.element.src = window.location.href;
    else if (typeof this.element.reload === "function") this.element.reload();
  }

  stop() {
    clearInterval(this.timer);
    this.timer = null;
  }
});
