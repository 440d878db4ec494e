// kenning web app: small enhancements over pages that work without this file.
// - filters submit when a choice changes (the Apply/Show buttons stay for keyboards and no-JS);
// - a form with data-confirm asks first; one with data-submit-on-load is sent when the page loads;
// - "/" jumps to the page's search field;
// - a form that changes something is sent in the background and the page is swapped in
//   place: the result lands in the live region (screen readers hear it) and focus moves to it.
(function () {
  "use strict";

  function onReady(fn) {
    if (document.readyState !== "loading") fn();
    else document.addEventListener("DOMContentLoaded", fn);
  }

  document.addEventListener("change", function (ev) {
    var el = ev.target;
    if (el instanceof HTMLSelectElement && el.hasAttribute("data-autosubmit") && el.form) {
      el.form.requestSubmit();
    }
  });

  document.addEventListener("keydown", function (ev) {
    if (ev.key !== "/" || ev.ctrlKey || ev.metaKey || ev.altKey) return;
    var t = ev.target;
    if (t instanceof HTMLInputElement || t instanceof HTMLTextAreaElement || t instanceof HTMLSelectElement) return;
    var field = document.querySelector("[data-shortcut='/']");
    if (field) {
      ev.preventDefault();
      field.focus();
    }
  });

  function swap(html, url) {
    var doc = new DOMParser().parseFromString(html, "text/html");
    var fresh = doc.querySelector("main");
    var main = document.querySelector("main");
    var flash = document.getElementById("flash");
    if (!fresh || !main || !flash) {
      window.location.assign(url);
      return;
    }
    var freshFlash = fresh.querySelector("#flash");
    if (freshFlash) freshFlash.remove();
    Array.prototype.slice.call(main.children).forEach(function (child) {
      if (child !== flash) child.remove();
    });
    Array.prototype.slice.call(fresh.children).forEach(function (child) {
      main.appendChild(document.importNode(child, true));
    });
    var nav = document.querySelector(".side nav");
    var freshNav = doc.querySelector(".side nav");
    if (nav && freshNav) nav.replaceWith(document.importNode(freshNav, true));
    document.title = doc.title;
    if (url && url !== window.location.href) window.history.replaceState(null, "", url);
    // Changing the existing live region's content is what assistive technology announces.
    flash.innerHTML = freshFlash ? freshFlash.innerHTML : "";
    var message = flash.querySelector(".flash");
    if (message) {
      message.setAttribute("tabindex", "-1");
      message.focus();
    } else {
      main.focus();
    }
  }

  function say(text, kind) {
    var flash = document.getElementById("flash");
    if (!flash) return;
    var box = document.createElement("div");
    box.className = "flash " + (kind || "error");
    box.setAttribute("tabindex", "-1");
    var p = document.createElement("p");
    p.textContent = text;
    box.appendChild(p);
    flash.replaceChildren(box);
    box.focus();
  }

  document.addEventListener("submit", function (ev) {
    var form = ev.target;
    if (!(form instanceof HTMLFormElement)) return;
    var confirmText = form.getAttribute("data-confirm");
    if (confirmText && !window.confirm(confirmText)) {
      ev.preventDefault();
      return;
    }
    // data-plain: a real navigation (sign-in, sign-out, workspace switch set cookies and leave the page).
    if (form.method.toLowerCase() !== "post" || !window.fetch || form.hasAttribute("data-plain")) return;
    ev.preventDefault();
    // The button that sent the form says which choice it was (name=value), as a plain post would.
    var data = new FormData(form);
    var by = ev.submitter;
    if (by && by.name && !data.has(by.name)) data.append(by.name, by.value);
    var buttons = form.querySelectorAll("button");
    buttons.forEach(function (b) { b.disabled = true; });
    fetch(form.action, {
      method: "POST",
      body: new URLSearchParams(data),
      credentials: "same-origin",
      headers: { Accept: "text/html" },
    }).then(function (res) {
      var type = res.headers.get("content-type") || "";
      return res.text().then(function (body) {
        if (type.indexOf("text/html") === 0) swap(body, res.url);
        else say(body || "The server did not answer.", "error");
      });
    }).catch(function () {
      buttons.forEach(function (b) { b.disabled = false; });
      say("Could not reach kenning. Is `kenning ui` still running?", "error");
    });
  });

  onReady(function () {
    // The server's sign-in page sends its one-time link at once (its button stays for no-JS).
    var auto = document.querySelector("form[data-submit-on-load]");
    if (auto) {
      auto.submit();
      return;
    }
    var target = window.location.hash && document.getElementById(window.location.hash.slice(1));
    if (target && target.hasAttribute("tabindex")) target.focus();
  });
})();
