// Strategist's page script. The server draws the pages and the live
// fragments; this only does what a browser must do itself: send the form
// token with htmx requests, show errors of those requests, open inline
// forms, and on the conversation page follow the stream without showing an
// event twice, show the connection state, tick timers, keep opened details
// open, and enable the composer as turns start and end.
(function () {
  'use strict';

  var token = document.querySelector('meta[name="csrf-token"]');
  document.addEventListener('htmx:configRequest', function (e) {
    if (token) e.detail.headers['X-CSRF-Token'] = token.content;
  });

  // Errors of htmx requests: the server's message (its error page says it
  // in [data-testid=error-message]) goes to the flash region.
  function flash(msg) {
    var f = document.getElementById('flash');
    if (f) f.textContent = msg;
  }
  document.addEventListener('htmx:beforeRequest', function () { flash(''); });
  document.addEventListener('htmx:responseError', function (e) {
    var xhr = e.detail.xhr, msg = '';
    try {
      var doc = new DOMParser().parseFromString(xhr.responseText, 'text/html');
      var m = doc.querySelector('[data-testid="error-message"]');
      if (m) msg = m.textContent.trim();
    } catch (_) { /* not HTML */ }
    msg = msg || 'The request failed (' + xhr.status + '). Reload the page and try again.';
    // A form with a [data-form-error] element (the parameter editor) says
    // it there, next to the fields it is about.
    var out = formError(e.detail.elt);
    if (out) out.textContent = msg; else flash(msg);
  });
  document.addEventListener('htmx:sendError', function () {
    flash('The server could not be reached. Check the connection and try again.');
    var f = document.getElementById('flash');
    if (f) f.setAttribute('data-connection', '');
  });

  // A menu (details.menu: Export) closes when the researcher clicks
  // anywhere else (Share, say) or picks one of its items, and on Esc with
  // focus in it, focus going back to its toggle (that Esc stops no turn).
  document.addEventListener('click', function (e) {
    document.querySelectorAll('details.menu[open]').forEach(function (m) {
      var inside = m.contains(e.target);
      if (!inside || (e.target.closest && e.target.closest('.menu-items a, .menu-items button'))) m.open = false;
    });
  });
  document.addEventListener('keydown', function (e) {
    if (e.key !== 'Escape' || e.defaultPrevented) return;
    var m = e.target.closest && e.target.closest('details.menu[open]');
    if (!m) return;
    e.preventDefault();
    m.open = false;
    m.querySelector('summary').focus();
  });

  // Downloads (results, enrichment, exports) are fetched here rather than
  // left to the browser, which drops a refused or broken download without a
  // word: the file is saved only when all of it arrived, and otherwise the
  // server's reason (its JSON error's message) goes to the flash region.
  document.addEventListener('click', function (e) {
    var a = e.target.closest && e.target.closest('a[download]');
    if (!a || e.defaultPrevented || e.button !== 0 || e.ctrlKey || e.metaKey || e.shiftKey || e.altKey) return;
    if (a.protocol === 'blob:' || new URL(a.href, location.href).origin !== location.origin || !window.fetch) return;
    e.preventDefault();
    if (a.getAttribute('aria-busy') === 'true') return;
    a.setAttribute('aria-busy', 'true');
    flash('');
    fetch(a.href, { credentials: 'same-origin' }).then(function (r) {
      if (r.ok) {
        return r.blob().then(function (b) {
          var name = a.getAttribute('download');
          var m = /filename="?([^";]+)"?/.exec(r.headers.get('Content-Disposition') || '');
          if (m) name = m[1];
          var url = URL.createObjectURL(b), save = document.createElement('a');
          save.href = url;
          save.download = name || 'download';
          document.body.appendChild(save);
          save.click();
          save.remove();
          setTimeout(function () { URL.revokeObjectURL(url); }, 1000);
        });
      }
      return r.text().then(function (t) {
        var msg = '';
        try { msg = JSON.parse(t).error.message; } catch (_) { /* not a JSON error */ }
        flash('The download failed: ' + (msg || 'the server answered ' + r.status + '.'));
      });
    }).catch(function () {
      flash('The download failed: the connection broke before all of it arrived. Try again.');
    }).finally(function () {
      a.removeAttribute('aria-busy');
    });
  });

  // Parts drawn on demand: load(el, url) fills el with the server's
  // fragment at url the first time it is shown; a failed load can be
  // retried by opening the part again.
  function load(el, url, source) {
    if (!el || !url || el.hasAttribute('data-loaded')) return;
    el.setAttribute('data-loaded', '');
    el.setAttribute('aria-busy', 'true');
    el.innerHTML = '<p class="muted small">Loading…</p>';
    htmx.ajax('GET', url, { source: source, target: el, swap: 'innerHTML' });
  }
  function loadEnded(e) {
    var el = e.detail.target;
    if (!el || !el.hasAttribute('aria-busy')) return;
    el.removeAttribute('aria-busy');
    if (!e.detail.successful) {
      el.removeAttribute('data-loaded');
      el.innerHTML = '<p class="error small">Could not load this. Close and open it again to retry.</p>';
    }
  }
  document.addEventListener('htmx:afterRequest', loadEnded);

  // A button with data-toggle="id" shows or hides that element (and with
  // data-load, loads it first).
  document.addEventListener('click', function (e) {
    var b = e.target.closest('[data-toggle]');
    if (!b) return;
    var id = b.getAttribute('data-toggle'), el = document.getElementById(id);
    if (!el) return;
    el.hidden = !el.hidden;
    document.querySelectorAll('[data-toggle="' + id + '"]').forEach(function (t) {
      if (t.hasAttribute('aria-expanded')) t.setAttribute('aria-expanded', String(!el.hidden));
    });
    if (el.hidden) return;
    if (b.hasAttribute('data-load')) {
      load(el, b.getAttribute('data-load'), b);
      return;
    }
    var first = el.querySelector('input:not([type=hidden]), textarea, button');
    if (first) first.focus();
  });

  // A button with data-copy="id" copies that field's text (a share link)
  // and says so.
  document.addEventListener('click', function (e) {
    var b = e.target.closest('[data-copy]');
    if (!b) return;
    var el = document.getElementById(b.getAttribute('data-copy'));
    if (!el) return;
    el.select();
    var done = function () { b.textContent = 'Copied'; };
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(el.value).then(done, function () { flash('Copy failed; the link is selected, copy it by hand.'); });
    } else {
      flash('The link is selected; copy it with the keyboard (Ctrl+C or Cmd+C).');
    }
  });

  // Copy buttons: data-copy-message copies the text of the message it is
  // in; data-copy-url copies what the server answers at that address (all
  // gene ids of a step, one a line). The button says "Copied" for a moment
  // and the page's live region says it too. Without the asynchronous
  // clipboard (an insecure page, a refused permission) the text is copied
  // through a selected text box; if that fails too, the text is left
  // selected in a box to copy by hand.
  function copied(b, what) {
    var label = b.getAttribute('data-label') || b.textContent;
    b.setAttribute('data-label', label);
    b.setAttribute('data-copied', '');
    b.textContent = 'Copied';
    var a = document.getElementById('announcer');
    if (a) a.textContent = what + ' copied to the clipboard.';
    clearTimeout(b._copiedTimer);
    b._copiedTimer = setTimeout(function () {
      b.textContent = label;
      b.removeAttribute('data-copied');
    }, 2000);
  }
  function copyByHand(b, text) {
    var box = document.createElement('textarea');
    box.value = text;
    box.setAttribute('readonly', '');
    box.setAttribute('aria-label', 'Text to copy');
    box.className = 'copy-fallback';
    b.insertAdjacentElement('afterend', box);
    box.select();
    var ok = false;
    try { ok = document.execCommand('copy'); } catch (_) { ok = false; }
    if (ok) { box.remove(); b.focus(); return true; }
    flash('The text is selected in the box below the button; copy it with Ctrl+C or Cmd+C.');
    return false;
  }
  function copyText(b, text, what) {
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(text).then(function () { copied(b, what); }, function () {
        if (copyByHand(b, text)) copied(b, what);
      });
    } else if (copyByHand(b, text)) {
      copied(b, what);
    }
  }
  document.addEventListener('click', function (e) {
    var b = e.target.closest('[data-copy-message]');
    if (!b) return;
    var m = b.closest('[data-testid="message"]');
    var t = m && m.querySelector('[data-testid="message-text"]');
    if (t) copyText(b, t.innerText.trim(), 'Message');
  });
  document.addEventListener('click', function (e) {
    var b = e.target.closest('[data-copy-url]');
    if (!b) return;
    b.setAttribute('aria-busy', 'true');
    fetch(b.getAttribute('data-copy-url'), { credentials: 'same-origin' }).then(function (r) {
      if (!r.ok) throw new Error('status ' + r.status);
      return r.text();
    }).then(function (text) {
      b.removeAttribute('aria-busy');
      copyText(b, text.trim(), 'Gene ids');
    }).catch(function () {
      b.removeAttribute('aria-busy');
      flash('The gene ids could not be fetched. Try again, or download them as TSV.');
    });
  });

  // An opened Edit puts the cursor at the end of the message.
  document.addEventListener('toggle', function (e) {
    var d = e.target;
    if (d.tagName !== 'DETAILS' || !d.open || !d.classList.contains('edit-message')) return;
    var box = d.querySelector('textarea');
    if (box) { box.focus(); box.setSelectionRange(box.value.length, box.value.length); }
  }, true);

  // A tool card (details with data-load) loads its body when first opened.
  document.addEventListener('toggle', function (e) {
    var d = e.target;
    if (d.tagName === 'DETAILS' && d.open && d.hasAttribute('data-load')) {
      load(d.querySelector(':scope > .tool-body'), d.getAttribute('data-load'), d);
    }
  }, true);

  document.addEventListener('htmx:beforeRequest', function (e) {
    var out = formError(e.detail.elt);
    if (out) out.textContent = '';
  });
  function formError(elt) {
    var f = elt && elt.closest && elt.closest('form');
    return f && f.querySelector('[data-form-error]');
  }

  // ---- The parameter editor's term typeahead ----
  // A suggested term (button.term-pick, drawn by the server under the
  // search box) is added as a line of its field and named in the field's
  // list of terms; Enter in the search box adds the first suggestion
  // instead of sending the form, and the arrow keys move between the box
  // and the suggestions.
  function pickTerm(b) {
    var form = b.closest('form'), param = b.getAttribute('data-param'), term = b.getAttribute('data-term');
    var area = form && form.querySelector('textarea[name="p.' + CSS.escape(param) + '"]');
    if (!area) return;
    var lines = area.value.split('\n').map(function (l) { return l.trim(); }).filter(Boolean);
    if (lines.indexOf(term) < 0) {
      lines.push(term);
      area.value = lines.join('\n');
      var list = form.querySelector('ul.term-chosen[data-param="' + CSS.escape(param) + '"]');
      if (list) {
        var li = document.createElement('li');
        li.setAttribute('data-term', term);
        li.textContent = b.getAttribute('data-label') || term;
        list.appendChild(li);
      }
    }
    var box = form.querySelector('input.term-search[data-param="' + CSS.escape(param) + '"]');
    var out = box && document.getElementById(box.getAttribute('aria-controls'));
    if (out) out.textContent = 'Added ' + (b.getAttribute('data-label') || term) + '.';
    if (box) { box.value = ''; box.focus(); }
  }
  // A term taken out of the field by hand leaves its list too.
  document.addEventListener('input', function (e) {
    var area = e.target, form = area.form, name = area.name || '';
    if (area.tagName !== 'TEXTAREA' || !form || name.indexOf('p.') !== 0) return;
    var list = form.querySelector('ul.term-chosen[data-param="' + CSS.escape(name.slice(2)) + '"]');
    if (!list) return;
    var lines = area.value.split('\n').map(function (l) { return l.trim(); });
    list.querySelectorAll('li[data-term]').forEach(function (li) {
      if (lines.indexOf(li.getAttribute('data-term')) < 0) li.remove();
    });
  });
  document.addEventListener('click', function (e) {
    var b = e.target.closest && e.target.closest('button.term-pick');
    if (b) { e.preventDefault(); pickTerm(b); }
  });
  document.addEventListener('keydown', function (e) {
    var t = e.target;
    if (t.matches && t.matches('input.term-search')) {
      var first = document.querySelector('#' + CSS.escape(t.getAttribute('aria-controls')) + ' button.term-pick');
      if (e.key === 'Enter') {
        e.preventDefault();
        if (first) pickTerm(first);
      } else if (e.key === 'ArrowDown' && first) {
        e.preventDefault();
        first.focus();
      }
    } else if (t.matches && t.matches('button.term-pick') && (e.key === 'ArrowDown' || e.key === 'ArrowUp')) {
      e.preventDefault();
      var all = Array.prototype.slice.call(t.closest('.term-suggestions').querySelectorAll('button.term-pick'));
      var i = all.indexOf(t) + (e.key === 'ArrowDown' ? 1 : -1);
      if (i >= 0 && i < all.length) all[i].focus();
      else if (i < 0) t.closest('.param-field').querySelector('input.term-search').focus();
    }
  });

  // ---- One step, wherever it shows ----
  // A step's box in the graph, the sub-agent node that built it and the
  // chat's mentions of it carry its id (data-step-id on .step-link).
  // Hovering or focusing one marks all of them; a mention or a node's step
  // link opens the step's results as its box does.
  var lit = '';
  function light(id) {
    if (id === lit) return;
    document.querySelectorAll('.step-link.step-lit').forEach(function (el) { el.classList.remove('step-lit'); });
    lit = id || '';
    if (!lit) return;
    document.querySelectorAll('.step-link[data-step-id="' + CSS.escape(lit) + '"]').forEach(function (el) { el.classList.add('step-lit'); });
  }
  function stepOf(el) {
    var l = el && el.closest && el.closest('.step-link[data-step-id]');
    return l ? l.getAttribute('data-step-id') : '';
  }
  document.addEventListener('mouseover', function (e) { light(stepOf(e.target)); });
  document.addEventListener('mouseout', function (e) { if (!stepOf(e.relatedTarget)) light(stepOf(document.activeElement)); });
  document.addEventListener('focusin', function (e) { light(stepOf(e.target)); });
  document.addEventListener('focusout', function (e) { if (!stepOf(e.relatedTarget)) light(''); });
  document.addEventListener('click', function (e) {
    var a = e.target.closest && e.target.closest('a.step-mention, a.step-select');
    if (!a) return;
    var g = document.querySelector('[data-testid="graph-step"][role="button"][data-step-id="' + CSS.escape(a.getAttribute('data-step-id')) + '"]');
    if (!g) return; // no results to open here: the link goes to the box
    e.preventDefault();
    g.scrollIntoView({ block: 'nearest' });
    g.focus({ preventScroll: true });
    g.dispatchEvent(new MouseEvent('click', { bubbles: true }));
  });
  function relight() {
    if (!lit) return;
    var id = lit;
    lit = '';
    light(id);
  }

  var live = document.getElementById('live');
  if (!live) return;

  // ---- The live stream ----
  // lastSeq is the last event shown. A message at or below it is a replay
  // and is dropped; when htmx-ext-sse opens a new EventSource (after the
  // old one closed) it starts after lastSeq, not after the page's N.
  var lastSeq = Number(live.dataset.after) || 0;
  var status = document.getElementById('connection-status');
  function setState(state, text) {
    status.setAttribute('data-state', state);
    status.querySelector('.label').textContent = text;
  }
  htmx.createEventSource = function (url) {
    return new EventSource(url.replace(/([?&]after=)\d+/, '$1' + lastSeq), { withCredentials: true });
  };
  live.addEventListener('htmx:sseOpen', function () {
    setState('open', 'Live');
    // The connection is back: an error said while it was down is stale.
    var f = document.getElementById('flash');
    if (f && f.hasAttribute('data-connection')) { f.textContent = ''; f.removeAttribute('data-connection'); }
  });
  live.addEventListener('htmx:sseError', function () { setState('reconnecting', 'Reconnecting…'); });
  live.addEventListener('htmx:sseClose', function () { setState('closed', 'Disconnected'); });

  var chat = document.getElementById('chat');
  // The chat follows what streams in while the researcher is at its end
  // (stick), and it is scrolled once a frame (follow), not after every
  // message. Whether it sticks is read at the first message after a frame,
  // when the browser has just laid the page out, so reading it costs
  // nothing: measuring the chat before and after each swap made the browser
  // lay the whole page out twice a message, and a build's eighty messages
  // queued up behind that.
  var stick = true;
  var followFrame = 0, toStrategy = false;
  live.addEventListener('htmx:sseBeforeMessage', function (e) {
    var id = Number(e.detail.lastEventId);
    if (id && id <= lastSeq) { e.preventDefault(); return; }
    if (id) lastSeq = id;
    if (followFrame) return;
    chat = document.getElementById('chat');
    stick = chat.scrollHeight - chat.scrollTop - chat.clientHeight < 80;
  });
  function follow() {
    if (followFrame) return;
    followFrame = requestAnimationFrame(function () {
      followFrame = 0;
      chat = document.getElementById('chat');
      if (stick) chat.scrollTop = chat.scrollHeight;
      if (toStrategy) {
        toStrategy = false;
        document.getElementById('strategy').scrollIntoView({ block: 'start' });
      }
    });
  }
  var wide = window.matchMedia('(min-width: 900px)');
  // The tab's title follows the conversation's heading (a rename, or the
  // title following the strategy's root step).
  var heading = document.getElementById('conversation-title');
  var shownTitle = heading ? heading.textContent : '';
  function followTitle() {
    var h = document.getElementById('conversation-title');
    if (!h || h.textContent === shownTitle) return;
    if (shownTitle && document.title.indexOf(shownTitle) >= 0) document.title = document.title.replace(shownTitle, h.textContent);
    shownTitle = h.textContent;
  }
  live.addEventListener('htmx:sseMessage', function (e) {
    followTitle();
    restoreOpen();
    syncComposer();
    turnEnded();
    chat = document.getElementById('chat');
    // A new delegation: bring the strategy panel into view (desktop, where
    // the panels scroll on their own), so the graph, its result count, Undo
    // and Export are watched as the build grows them; the sub-agents
    // follow below it.
    if (wide.matches && e.detail.data.indexOf('id="subagents"') >= 0) toStrategy = true;
    follow();
  });
  document.addEventListener('htmx:afterSwap', function (e) {
    if (e.detail.target && e.detail.target.id === 'results') e.detail.target.scrollIntoView({ block: 'nearest' });
    // GO enrichment opens at its top: its heading and summary, then the
    // first terms with their p and BH.
    if (e.detail.target && e.detail.target.id === 'enrichment') e.detail.target.scrollIntoView({ block: 'start' });
  });
  chat.scrollTop = chat.scrollHeight;

  // Details the researcher opened stay open when the stream redraws them.
  var open = new Set();
  document.addEventListener('toggle', function (e) {
    var d = e.target;
    if (d.tagName !== 'DETAILS' || !d.id) return;
    if (d.open) open.add(d.id); else open.delete(d.id);
  }, true);
  function restoreOpen() {
    open.forEach(function (id) {
      var d = document.getElementById(id);
      if (d && !d.open) d.open = true;
    });
  }

  // Running timers tick; the server's clock is the reference.
  var convo = document.getElementById('convo');
  var skew = Number(convo.dataset.serverNowMs) - Date.now();
  function elapsed(ms) {
    var s = Math.max(0, Math.floor(ms / 1000));
    return s < 60 ? s + ' s' : Math.floor(s / 60) + ' min ' + String(s % 60).padStart(2, '0') + ' s';
  }
  setInterval(function () {
    var now = Date.now() + skew;
    document.querySelectorAll('[data-running="true"][data-started-ms]').forEach(function (el) {
      el.textContent = elapsed(now - Number(el.dataset.startedMs));
    });
  }, 1000);

  // ---- The composer ----
  // It is disabled while a turn runs (the stream redraws #stop-form with
  // data-running) and from Send until the turn it started is on the page.
  var form = document.getElementById('composer');
  var fields = document.getElementById('composer-fields');
  var input = document.getElementById('message-input');
  var awaiting = '';
  // A message sent while a turn runs waits here (queued) and is sent when
  // the turn ends; if the turn was stopped or failed (Retry is offered),
  // it stays in the box unsent and the note says so.
  var wait = document.getElementById('composer-wait');
  var queued = false;
  function say(msg) {
    // Said again on every message of a running turn: the same words are
    // left alone rather than drawn again.
    if (!wait || (wait.textContent === msg && wait.hidden === (msg === ''))) return;
    wait.textContent = msg;
    wait.hidden = msg === '';
  }
  function composerRunning() {
    var stop = document.getElementById('stop-form');
    return !!stop && stop.getAttribute('data-running') === 'true';
  }
  function syncComposer() {
    var running = composerRunning();
    // Undo, Redo and the history's versions wait for a running turn: going
    // back under it would leave its half-built strategy on screen.
    document.querySelectorAll('[data-idle-only]').forEach(function (b) { if (b.disabled !== running) b.disabled = running; });
    if (awaiting && chat.querySelector('[data-turn-id="' + CSS.escape(awaiting) + '"]')) awaiting = '';
    if (fields.disabled !== (awaiting !== '')) fields.disabled = awaiting !== '';
    if (running) {
      if (!queued) say('A turn is running: Enter queues your message, and it is sent when the turn ends.');
      return;
    }
    if (!queued) { say(''); return; }
    queued = false;
    var recovery = document.getElementById('recovery');
    if (input.value.trim() === '') { say(''); return; }
    if (recovery && !recovery.hidden) {
      say('Not sent: the turn did not finish. Send your message when you are ready.');
      return;
    }
    say('');
    form.requestSubmit();
  }
  form.addEventListener('htmx:beforeRequest', function (e) {
    if (e.target !== form) return;
    if (composerRunning()) {
      e.preventDefault();
      queued = true;
      say('Queued: your message is sent when this turn ends. Edit it until then, or empty the box to cancel.');
      return;
    }
    fields.disabled = true;
  });
  form.addEventListener('htmx:afterRequest', function (e) {
    if (e.target !== form) return;
    if (e.detail.successful) {
      input.value = '';
      awaiting = e.detail.xhr.getResponseHeader('X-Turn-Id') || '';
    }
    syncComposer();
    // A refused message goes back to the box; a sent one's answer gets
    // focus when its turn ends (turnEnded).
    if (!e.detail.successful && !fields.disabled) input.focus();
  });
  syncComposer();
  // A new conversation (no turn yet) starts with the cursor in the message
  // box: the researcher came to type. (The page's markup carries no
  // autofocus, so that it stays the same as the stream redraws it.)
  if (!chat.querySelector('[data-turn-id]') && !fields.disabled) input.focus();
  // Esc stops the running turn, wherever focus is.
  document.addEventListener('keydown', function (e) {
    if (e.key !== 'Escape' || e.defaultPrevented || e.isComposing) return;
    var stop = document.getElementById('stop-form');
    if (!stop || stop.getAttribute('data-running') !== 'true') return;
    e.preventDefault();
    stop.requestSubmit();
  });
  // "/" outside a text field puts the cursor in the composer.
  document.addEventListener('keydown', function (e) {
    if (e.key !== '/' || e.defaultPrevented || e.isComposing || e.ctrlKey || e.metaKey || e.altKey) return;
    var t = e.target;
    if (t && (t.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName))) return;
    if (!input || input.disabled || (fields && fields.disabled)) return;
    e.preventDefault();
    input.focus();
  });
  // A graph step is a button: Enter and Space open its results as a click
  // does (an htmx trigger filter would need eval, which the page's policy
  // forbids).
  document.addEventListener('keydown', function (e) {
    if ((e.key !== 'Enter' && e.key !== ' ') || e.defaultPrevented) return;
    var g = e.target.closest && e.target.closest('[data-testid="graph-step"][role="button"]');
    if (!g) return;
    e.preventDefault();
    g.dispatchEvent(new MouseEvent('click', { bubbles: true }));
  });
  // The step whose results are shown is marked (aria-current) and kept
  // marked when the graph is redrawn; once its results are drawn, the step
  // is scrolled back into view if they pushed it out.
  var chosenStep = '';
  function markStep() {
    document.querySelectorAll('[data-testid="graph-step"]').forEach(function (g) {
      var on = g.getAttribute('data-step-id') === chosenStep;
      g.classList.toggle('selected', on);
      if (on) g.setAttribute('aria-current', 'true'); else g.removeAttribute('aria-current');
    });
  }
  document.addEventListener('htmx:beforeRequest', function (e) {
    var g = e.detail.elt && e.detail.elt.closest && e.detail.elt.closest('[data-testid="graph-step"]');
    if (!g) return;
    chosenStep = g.getAttribute('data-step-id');
    markStep();
  });
  document.addEventListener('htmx:afterSettle', function (e) {
    if (!chosenStep || !e.detail.target || e.detail.target.id !== 'results') return;
    var g = document.querySelector('[data-testid="graph-step"].selected');
    if (g) g.scrollIntoView({ block: 'nearest' });
  });
  live.addEventListener('htmx:sseMessage', function () { if (chosenStep) markStep(); });
  // A results table redrawn alone (filtered, sorted, paged): its controls'
  // hidden sort fields and the panel's address follow it, so the next
  // filter keeps the sort and a new strategy version redraws the same view.
  // "Wide table" gives the results most of the width on a desktop, and
  // gives it back; the choice outlives the panel's redraws.
  function syncWide() {
    var grid = document.querySelector('.convo-grid');
    var on = !!grid && grid.classList.contains('results-wide');
    document.querySelectorAll('[data-results-wide]').forEach(function (b) { b.setAttribute('aria-pressed', on ? 'true' : 'false'); });
  }
  document.addEventListener('click', function (e) {
    var b = e.target.closest && e.target.closest('[data-results-wide]');
    var grid = document.querySelector('.convo-grid');
    if (!b || !grid) return;
    grid.classList.toggle('results-wide');
    syncWide();
    var t = document.querySelector('.results-box .results-genes');
    if (t) t.scrollIntoView({ block: 'nearest' });
  });
  // The table's Columns menu hides and shows columns; the choice is kept
  // in the browser and outlives the panel's redraws and other steps.
  function chosenColumns() {
    try { return JSON.parse(localStorage.getItem('strategist.columns') || '{}'); } catch (e) { return {}; }
  }
  function applyColumns() {
    var chosen = chosenColumns();
    document.querySelectorAll('.results-box').forEach(function (box) {
      box.querySelectorAll('[data-column-toggle]').forEach(function (cb) {
        var key = cb.getAttribute('data-column-toggle');
        if (key in chosen) cb.checked = chosen[key];
        box.classList.toggle('hide-col-' + key, !cb.checked);
      });
    });
  }
  document.addEventListener('change', function (e) {
    var cb = e.target.closest && e.target.closest('[data-column-toggle]');
    if (!cb) return;
    var chosen = chosenColumns();
    chosen[cb.getAttribute('data-column-toggle')] = cb.checked;
    try { localStorage.setItem('strategist.columns', JSON.stringify(chosen)); } catch (err) { /* private mode: this page only */ }
    applyColumns();
  });
  // Applied as soon as a table is swapped in, not only when it settles,
  // so a reloaded table never shows a column the researcher hid.
  document.addEventListener('htmx:afterSwap', applyColumns);
  document.addEventListener('htmx:afterSettle', function () {
    applyColumns();
    syncWide();
    var t = document.querySelector('.results-box .results-genes');
    var box = t && t.closest('.results-box');
    if (!box) return;
    box.setAttribute('data-url', t.getAttribute('data-url'));
    var sort = box.querySelector('[data-table-sort]'), dir = box.querySelector('[data-table-dir]');
    if (sort) sort.value = t.getAttribute('data-sort') || '';
    if (dir) dir.value = t.getAttribute('data-dir') || '';
  });

  // The results panel follows the strategy: when the graph moves to
  // another version (an edit, an undo, the agents' work), the open step's
  // results are drawn again from it, or cleared if the step is gone.
  live.addEventListener('htmx:sseMessage', function () {
    relight();
    var view = document.getElementById('strategy-view');
    var box = document.querySelector('#results > .results-box');
    if (!view || !box || !(Number(view.dataset.version) > Number(box.dataset.version))) return;
    var id = box.getAttribute('data-step-id');
    box.setAttribute('data-version', view.dataset.version);
    if (!document.querySelector('[data-testid="graph-step"][data-step-id="' + CSS.escape(id) + '"]')) {
      document.getElementById('results').innerHTML = '';
      return;
    }
    htmx.ajax('GET', box.getAttribute('data-url'), { target: '#results', swap: 'innerHTML' });
  });
  // The results panel follows the controls too: when the stream redraws
  // the controls mark with another change, the open step's figures are
  // read again.
  var controlsSeen = (document.getElementById('controls-mark') || {}).dataset;
  controlsSeen = controlsSeen ? controlsSeen.seq : '';
  live.addEventListener('htmx:sseMessage', function () {
    var mark = document.getElementById('controls-mark');
    if (!mark || mark.dataset.seq === controlsSeen) return;
    controlsSeen = mark.dataset.seq;
    var box = document.querySelector('#results > .results-box');
    if (box) htmx.ajax('GET', box.getAttribute('data-url'), { target: '#results', swap: 'innerHTML' });
  });

  // An example request of an empty conversation goes into the message box.
  document.addEventListener('click', function (e) {
    var b = e.target.closest('[data-suggest]');
    if (!b || fields.disabled) return;
    input.value = b.getAttribute('data-suggest');
    input.focus();
  });

  // When a turn ends, its answer is announced (the polite live region) and
  // gets focus, without scrolling the chat away from where it is.
  var announcer = document.getElementById('announcer');
  var wasRunning = isRunning();
  function isRunning() {
    var stop = document.getElementById('stop-form');
    return !!stop && stop.getAttribute('data-running') === 'true';
  }
  function turnEnded() {
    var running = isRunning();
    if (!wasRunning || running) { wasRunning = running; return; }
    wasRunning = false;
    var turns = chat.querySelectorAll(':scope > [data-turn-id]');
    var turn = turns[turns.length - 1];
    if (!turn) return;
    var answers = turn.querySelectorAll('[data-role="assistant"]');
    var answer = answers[answers.length - 1];
    // The footer's status, error and tokens, not its controls (Regenerate).
    var end = turn.querySelector('.turn-end');
    var said = end ? Array.prototype.filter.call(end.children, function (c) { return c.tagName !== 'FORM'; })
      .map(function (c) { return c.innerText.trim(); }).join(' ').trim() : '';
    if (answer) {
      var text = answer.querySelector('[data-testid="message-text"]').innerText.trim();
      if (text.length > 300) text = text.slice(0, 300) + '…';
      said = 'Assistant: ' + text + (said ? ' (' + said + ')' : '');
      answer.setAttribute('tabindex', '-1');
      var a = document.activeElement;
      if (!a || a === document.body || !a.closest('.composer, .recovery, .stop-form') || a.disabled) {
        answer.focus({ preventScroll: true });
      }
    } else {
      // No answer (a turn stopped before it said anything): focus goes
      // back to the message box rather than to nowhere (the Stop button
      // that had it is gone).
      var f = document.activeElement;
      if (!f || f === document.body || f.closest('.stop-form') || f.disabled) input.focus({ preventScroll: true });
    }
    announcer.textContent = said;
  }
  input.addEventListener('keydown', function (e) {
    if (e.key !== 'Enter' || e.shiftKey || e.altKey || e.ctrlKey || e.metaKey || e.isComposing) return;
    e.preventDefault();
    if (!fields.disabled && input.value.trim() !== '') form.requestSubmit();
  });
})();

// A gene-list file is read into its form's text box (the server takes
// forms as application/x-www-form-urlencoded only, never multipart): the
// researcher sees the ids before uploading them.
document.addEventListener('change', function (e) {
  var input = e.target;
  if (!input.matches || !input.matches('input[type=file][data-list-file]') || !input.files || !input.files[0]) return;
  var box = document.getElementById(input.getAttribute('data-list-file'));
  var name = input.form && input.form.querySelector('input[name=name]');
  input.files[0].text().then(function (text) {
    if (box) box.value = text;
    if (name && !name.value) name.value = input.files[0].name.replace(/\.(txt|csv|tsv)$/i, '');
  });
});
