// The core's Stimulus controllers. A plugin's page registers its own the same way:
//   import { application } from "seqcore/application";
//   application.register("name", class extends Controller { ... });
import { Controller } from "@hotwired/stimulus";
import { application } from "seqcore/application";

// A table whose rows can be selected across pages: the selection lives in sessionStorage
// under the table's key, and bulk forms receive it as hidden "selected" inputs on submit.
// Without JavaScript the checkboxes of the current page are submitted as they are.
application.register("selection", class extends Controller {
  static targets = ["row", "all", "count", "matching"];
  static values = { key: String };

  connect() {
    this.selected = new Set(JSON.parse(sessionStorage.getItem(this.storageKey) || "[]"));
    this.rowTargets.forEach((box) => { box.checked = box.checked || this.selected.has(box.value); });
    this.rowTargets.forEach((box) => { if (box.checked) this.selected.add(box.value); });
    this.render();
  }

  get storageKey() { return `seqcore.selection.${this.keyValue}`; }

  toggle(event) {
    const box = event.target;
    if (box.checked) this.selected.add(box.value); else this.selected.delete(box.value);
    this.save();
  }

  toggleAll(event) {
    this.rowTargets.forEach((box) => {
      box.checked = event.target.checked;
      if (box.checked) this.selected.add(box.value); else this.selected.delete(box.value);
    });
    this.save();
  }

  clear() {
    this.selected.clear();
    this.rowTargets.forEach((box) => { box.checked = false; });
    if (this.hasMatchingTarget) this.matchingTarget.checked = false;
    this.save();
  }

  save() {
    sessionStorage.setItem(this.storageKey, JSON.stringify([...this.selected]));
    this.render();
  }

  render() {
    if (this.hasAllTarget) {
      this.allTarget.checked = this.rowTargets.length > 0 && this.rowTargets.every((b) => b.checked);
    }
    if (this.hasCountTarget) this.countTarget.textContent = String(this.selected.size);
  }

  // Before a bulk form is sent: the selection from other pages rides along.
  submit(event) {
    const form = event.target;
    form.querySelectorAll("input[data-selection-carried]").forEach((input) => input.remove());
    const onPage = new Set(this.rowTargets.filter((b) => b.form === form).map((b) => b.value));
    this.selected.forEach((id) => {
      if (onPage.has(id)) return;
      const input = document.createElement("input");
      input.type = "hidden";
      input.name = "selected";
      input.value = id;
      input.dataset.selectionCarried = "";
      form.appendChild(input);
    });
  }
});

// A form that submits itself when one of its fields changes (filters, page sizes).
application.register("autosubmit", class extends Controller {
  submit() { this.element.requestSubmit(); }
});

// A Turbo frame that reloads itself every interval while it is on the page (live states).
application.register("refresh", class extends Controller {
  static values = { interval: { type: Number, default: 5000 } };
  connect() {
    this.timer = setInterval(() => {
      // The frame's source is the page itself: Turbo takes the matching frame out of it.
      if (!this.element.src) this.element.src = window.location.href;
      else if (typeof this.element.reload === "function") this.element.reload();
    }, this.intervalValue);
  }
  disconnect() { clearInterval(this.timer); }
});

// A tree drawn by seqcore/web/trees.py: zoom buttons scale the drawing inside its scrolling
// box; the search box highlights the tips whose name or category contains the text (the
// others are dimmed) and says how many match; a clade's node collapses the clade into a
// wedge and expands it again (click, or Enter/Space once focused: the nodes become buttons
// and the drawing a group of them). The tools are hidden until this connects, so a page
// without JavaScript shows the whole tree alone, as a picture.
application.register("tree", class extends Controller {
  static targets = ["drawing", "tools", "query", "status"];

  connect() {
    this.zoom = 1;
    this.toolsTargets.forEach((tools) => { tools.hidden = false; });
    this.drawingTargets.forEach((drawing) => { drawing.setAttribute("role", "group"); });
    this.element.querySelectorAll("svg.tree g.clade > g.node").forEach((node) => {
      node.setAttribute("role", "button");
      node.setAttribute("tabindex", "0");
      node.setAttribute("aria-expanded", "true");
      const title = node.querySelector("title");
      if (title) node.setAttribute("aria-label", title.textContent);
    });
  }

  zoomIn() { this.setZoom(this.zoom * 1.5); }

  zoomOut() { this.setZoom(Math.max(1, this.zoom / 1.5)); }

  reset() { this.setZoom(1); }

  setZoom(value) {
    this.zoom = Math.min(value, 12);
    this.element.style.setProperty("--tree-zoom", String(this.zoom));
  }

  toggle(event) {
    const node = event.currentTarget;
    this.setCollapsed(node.parentNode, node.getAttribute("aria-expanded") !== "false");
  }

  key(event) {
    if (event.key !== "Enter" && event.key !== " ") return;
    event.preventDefault();
    this.toggle(event);
  }

  expandAll() {
    this.element.querySelectorAll("svg.tree g.clade.is-collapsed").forEach((clade) => {
      this.setCollapsed(clade, false);
    });
  }

  setCollapsed(clade, collapsed) {
    clade.classList.toggle("is-collapsed", collapsed);
    const wedge = clade.querySelector(":scope > g.collapsed");
    if (wedge) wedge.setAttribute("display", collapsed ? "inline" : "none");
    const node = clade.querySelector(":scope > g.node");
    if (node) node.setAttribute("aria-expanded", collapsed ? "false" : "true");
  }

  search() {
    const text = this.queryTarget.value.trim().toLowerCase();
    const tips = this.element.querySelectorAll("g.tip");
    let found = 0;
    tips.forEach((tip) => {
      const haystack = `${tip.dataset.name || ""} ${tip.dataset.category || ""}`.toLowerCase();
      const match = text !== "" && haystack.includes(text);
      tip.classList.toggle("match", match);
      tip.classList.toggle("dimmed", text !== "" && !match);
      if (match) found += 1;
    });
    // A collapsed clade holding a match is highlighted in its place.
    this.element.querySelectorAll("svg.tree g.clade.is-collapsed").forEach((clade) => {
      clade.classList.toggle("holds-match", clade.querySelector("g.tip.match") !== null);
    });
    if (this.hasStatusTarget) {
      this.statusTarget.textContent = text === "" ? "" :
        this.statusTarget.dataset.template.replace("{count}", String(found));
    }
  }
});
