/*!
 * stratus console widgets — vanilla ES2020, no dependencies.
 * Public API: window.Stratus (see docs/console-widgets.md).
 */
(() => {
  'use strict';

  /* ------------------------------------------------------------------ *
   * i18n
   * ------------------------------------------------------------------ */
  // Fallbacks only; the server's js_strings blob (<script id="i18n">) wins.
  const FALLBACK = {
    'js.loading': 'Loading...',
    'js.request_failed': 'Request failed',
    'js.request_failed_status': 'Request failed (HTTP {status})',
    'js.network_error': 'Network error. Check your connection and try again.',
    'js.success': 'Operation succeeded.',
    'js.created': 'Created successfully.',
    'js.saved': 'Saved.',
    'js.dismiss': 'Dismiss notification',
    'js.confirm_title': 'Confirm',
    'js.confirm': 'Confirm',
    'js.cancel': 'Cancel',
    'js.close': 'Close',
    'js.copied': 'Copied to clipboard',
    'js.copy_failed': 'Copy failed',
    'js.required': 'This field is required.',
    'js.select_required': 'Please select an option.',
    'js.fix_errors': 'Please correct the highlighted fields.',
    'js.no_options': 'No options available',
    'js.cascade_wait': 'Select {field} first',
    'js.cascade_failed': 'Failed to load options',
    'js.please_select': 'Please select',
    'js.yes': 'Yes',
    'js.no': 'No',
    'js.empty_value': '-',
    'js.edit': 'Edit',
    'js.edit_step': 'Edit {step}',
    'js.step_of': 'Step {n} of {total}',
    'js.selected_count': '{n} selected',
    'js.batch_confirm': 'Apply "{action}" to {n} selected item(s)?',
    'js.batch_done': '{action}: {ok} succeeded.',
    'js.batch_partial': '{action}: {ok} succeeded, {failed} failed. {message}',
    'js.request_id': 'Request ID: {id}',
    'js.error_code': 'Error code: {code}',
    'js.load_failed': 'Failed to load content.',
    'js.submitting': 'Submitting...',
  };
  let STRINGS = null;
  function loadStrings() {
    STRINGS = {};
    const el = document.getElementById('i18n');
    if (!el) return;
    try {
      const data = JSON.parse(el.textContent || '{}');
      if (data && typeof data === 'object') STRINGS = data;
    } catch (_) { /* ignore malformed blob */ }
  }
  function format(s, vars) {
    if (!vars) return s;
    return String(s).replace(/\{(\w+)\}/g, (m, k) => (Object.prototype.hasOwnProperty.call(vars, k) && vars[k] != null ? String(vars[k]) : m));
  }
  function has(key) {
    if (!STRINGS) loadStrings();
    return Object.prototype.hasOwnProperty.call(STRINGS, key) || Object.prototype.hasOwnProperty.call(FALLBACK, key);
  }
  function t(key, vars) {
    if (!STRINGS) loadStrings();
    const s = STRINGS[key] ?? FALLBACK[key] ?? key;
    return format(s, vars);
  }

  /* ------------------------------------------------------------------ *
   * small utilities
   * ------------------------------------------------------------------ */
  const $ = (sel, root = document) => root.querySelector(sel);
  const $$ = (sel, root = document) => Array.from(root.querySelectorAll(sel));
  const meta = (name) => document.querySelector(`meta[name="${name}"]`)?.getAttribute('content') || '';
  let uid = 0;
  const nextId = (prefix) => `${prefix}-${++uid}`;

  function parseJSON(text, fallback) {
    if (text == null || text === '') return fallback;
    try { return JSON.parse(text); } catch (_) { return fallback; }
  }
  function getPath(obj, path) {
    if (!path) return obj;
    return String(path).split('.').reduce((o, k) => (o == null ? undefined : o[k]), obj);
  }
  /** Replace "{Field.Path}" placeholders with values from obj (URL-encoded when encode=true). */
  function fillTemplate(tpl, obj, encode = false) {
    return String(tpl).replace(/\{([\w.]+)\}/g, (m, k) => {
      const v = getPath(obj, k);
      if (v == null) return m;
      return encode ? encodeURIComponent(String(v)) : String(v);
    });
  }
  function esc(s) {
    return String(s).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }[c]));
  }
  const ICONS = {
    success: '<circle cx="8" cy="8" r="6"/><path d="m5.5 8.2 1.8 1.8 3.3-3.6"/>',
    error: '<circle cx="8" cy="8" r="6"/><path d="m6 6 4 4M10 6l-4 4"/>',
    warning: '<path d="M8 2.5 14 13H2z"/><path d="M8 6.5v3M8 11.2h.01"/>',
    info: '<circle cx="8" cy="8" r="6"/><path d="M8 7.5V11M8 5h.01"/>',
    close: '<path d="m4 4 8 8M12 4l-8 8"/>',
    check: '<path d="m3.5 8.5 3 3 6-7"/>',
  };
  function icon(name, size = 16, cls = '') {
    return `<svg class="icon icon-${name} ${cls}" width="${size}" height="${size}" viewBox="0 0 16 16" fill="none" stroke="currentColor" stroke-width="1.5" stroke-linecap="round" stroke-linejoin="round" aria-hidden="true" focusable="false">${ICONS[name] || ''}</svg>`;
  }
  function focusables(root) {
    return $$('a[href], area[href], button, input, select, textarea, iframe, [tabindex], [contenteditable="true"]', root)
      .filter((el) => !el.disabled && el.getAttribute('tabindex') !== '-1' && el.type !== 'hidden' && !el.closest('[hidden]') && el.getClientRects().length > 0);
  }
  function setBusy(el, busy) {
    if (!el) return;
    if (busy) {
      el.dataset.wasDisabled = el.disabled ? '1' : '';
      el.disabled = true;
      el.setAttribute('aria-busy', 'true');
      el.classList.add('is-loading');
    } else {
      if (!el.dataset.wasDisabled) el.disabled = false;
      el.removeAttribute('aria-busy');
      el.classList.remove('is-loading');
      delete el.dataset.wasDisabled;
    }
  }

  /* ------------------------------------------------------------------ *
   * API helper
   * ------------------------------------------------------------------ */
  class ApiError extends Error {
    constructor(message, { code = 'Error', requestId = '', status = 0, data = null } = {}) {
      super(message);
      this.name = 'ApiError';
      this.code = code;
      this.requestId = requestId;
      this.status = status;
      this.data = data;
    }
  }

  /**
   * POST /api/{product}/{Action} with a JSON body. Adds RegionId (from <meta name="region">)
   * when missing. Resolves with the JSON object; rejects with ApiError(.code, .message, .requestId, .status).
   */
  async function api(action, body = {}, opts = {}) {
    const path = String(action || '').replace(/^\/+/, '').replace(/^api\//, '');
    const payload = Object.assign({}, body || {});
    const region = meta('region');
    if (region && payload.RegionId == null) payload.RegionId = region;
    let res;
    try {
      res = await fetch(`/api/${path}`, {
        method: 'POST',
        credentials: 'same-origin',
        headers: {
          'Content-Type': 'application/json',
          Accept: 'application/json',
          'X-CSRF-Token': meta('csrf-token'),
        },
        body: JSON.stringify(payload),
        signal: opts.signal,
      });
    } catch (err) {
      if (err && err.name === 'AbortError') throw err;
      throw new ApiError(t('js.network_error'), { code: 'NetworkError' });
    }
    let data = null;
    try {
      const text = await res.text();
      data = text ? JSON.parse(text) : {};
    } catch (_) { data = null; }
    if (!res.ok || !data || typeof data !== 'object') {
      const msg = (data && (data.Message || data.message)) || t('js.request_failed_status', { status: res.status });
      throw new ApiError(msg, {
        code: (data && data.Code) || `Http${res.status}`,
        requestId: (data && data.RequestId) || res.headers.get('x-request-id') || '',
        status: res.status,
        data,
      });
    }
    return data;
  }
  const errorMessage = (err) => (err && err.message) || t('js.request_failed');

  /* ------------------------------------------------------------------ *
   * Toasts
   * ------------------------------------------------------------------ */
  const PENDING_TOAST = 'stratus.pendingToast';
  function toastRoot() {
    let root = document.getElementById('toast-root');
    if (!root) {
      root = document.createElement('div');
      root.id = 'toast-root';
      root.className = 'toast-root';
      root.setAttribute('aria-live', 'polite');
      document.body.appendChild(root);
    }
    return root;
  }
  /**
   * Show a toast. kind: success | error | warning | info. opts: {detail, duration}
   * Errors use role=alert, others role=status. Returns the element.
   */
  function toast(kind, message, opts = {}) {
    const k = ['success', 'error', 'warning', 'info'].includes(kind) ? kind : 'info';
    const el = document.createElement('div');
    el.className = `toast toast-${k}`;
    el.setAttribute('role', k === 'error' ? 'alert' : 'status');
    const detail = opts.detail ? `<span class="toast-detail">${esc(opts.detail)}</span>` : '';
    el.innerHTML = `${icon(k === 'error' ? 'error' : k, 16, 'toast-icon')}<div class="toast-text"><span class="toast-message">${esc(message)}</span>${detail}</div>`
      + `<button type="button" class="toast-close" aria-label="${esc(t('js.dismiss'))}" title="${esc(t('js.dismiss'))}">${icon('close', 14)}</button>`;
    const remove = () => {
      if (!el.isConnected) return;
      el.classList.add('is-leaving');
      setTimeout(() => el.remove(), 200);
    };
    el.querySelector('.toast-close').addEventListener('click', remove);
    toastRoot().appendChild(el);
    const duration = opts.duration ?? (k === 'error' ? 8000 : 4500);
    if (duration > 0) {
      let timer = setTimeout(remove, duration);
      el.addEventListener('mouseenter', () => clearTimeout(timer));
      el.addEventListener('mouseleave', () => { timer = setTimeout(remove, 2000); });
    }
    return el;
  }
  function toastError(err) {
    const detail = err && err.requestId ? t('js.request_id', { id: err.requestId }) : (err && err.code && err.code !== 'Error' ? t('js.error_code', { code: err.code }) : '');
    return toast('error', errorMessage(err), { detail });
  }
  /** Show a toast after the next page load (used before reload/redirect). */
  function toastAfterReload(kind, message) {
    try { sessionStorage.setItem(PENDING_TOAST, JSON.stringify({ kind, message })); } catch (_) { /* private mode */ }
  }
  function reloadWithToast(kind, message) {
    toastAfterReload(kind, message);
    // a dialog the address opened (?create=1) is done with: the reloaded list must not open it again
    const url = new URL(window.location.href);
    if (url.searchParams.has('create')) {
      url.searchParams.delete('create');
      window.location.replace(url.toString());
    } else {
      window.location.reload();
    }
  }
  function goWithToast(href, kind, message) {
    toastAfterReload(kind, message);
    window.location.assign(href);
  }

  /* ------------------------------------------------------------------ *
   * Dialog stack (modals, drawers): focus trap, Escape, restore focus
   * ------------------------------------------------------------------ */
  const stack = [];
  function dialogEl(container) {
    return container.querySelector('[role="dialog"]') || container;
  }
  function openLayer(container, { opener = null, onClose = null, focus = null } = {}) {
    if (!container) return;
    if (stack.some((s) => s.container === container)) return;
    container.hidden = false;
    // force reflow so the CSS transition runs
    void container.offsetWidth;
    container.classList.add('is-open');
    document.body.classList.add('has-overlay');
    stack.push({ container, opener: opener || document.activeElement, onClose });
    const dlg = dialogEl(container);
    const target = focus
      || dlg.querySelector('[autofocus]')
      || focusables(dlg.querySelector('.modal-body, .drawer-body') || dlg).find((el) => el.matches('input, select, textarea'))
      || (dlg.classList.contains('is-danger') ? dlg.querySelector('.modal-footer [data-modal-close]') : null)
      || dlg.querySelector('.modal-footer .btn-primary, .modal-footer .btn-danger')
      || focusables(dlg)[0]
      || dlg;
    if (target === dlg && !dlg.hasAttribute('tabindex')) dlg.setAttribute('tabindex', '-1');
    setTimeout(() => { try { target.focus({ preventScroll: true }); } catch (_) { /* ignore */ } }, 20);
  }
  function closeLayer(container, result) {
    const i = stack.findIndex((s) => s.container === container);
    if (i === -1) {
      if (container) { container.classList.remove('is-open'); container.hidden = true; }
      return;
    }
    const [entry] = stack.splice(i, 1);
    container.classList.remove('is-open');
    container.hidden = true;
    if (!stack.length) document.body.classList.remove('has-overlay');
    if (entry.onClose) { try { entry.onClose(result); } catch (e) { console.warn(e); } }
    container.dispatchEvent(new CustomEvent('stratus:close', { bubbles: true, detail: { result } }));
    let back = entry.opener;
    if (back && back.closest && back.closest('[hidden]')) {
      const menu = back.closest('[role="menu"]');
      back = (menu && document.querySelector(`[aria-controls="${CSS.escape(menu.id)}"]`)) || null;
    }
    if (back && back.isConnected && typeof back.focus === 'function') {
      try { back.focus({ preventScroll: true }); } catch (_) { /* ignore */ }
    }
  }
  function topLayer() { return stack.length ? stack[stack.length - 1].container : null; }

  document.addEventListener('keydown', (e) => {
    const top = topLayer();
    if (!top) return;
    if (e.key === 'Escape') {
      e.preventDefault();
      requestClose(top, false);
    } else if (e.key === 'Tab') {
      const dlg = dialogEl(top);
      const items = focusables(dlg);
      if (!items.length) { e.preventDefault(); dlg.focus(); return; }
      const first = items[0];
      const last = items[items.length - 1];
      const active = document.activeElement;
      if (!dlg.contains(active)) { e.preventDefault(); first.focus(); } else if (e.shiftKey && active === first) { e.preventDefault(); last.focus(); } else if (!e.shiftKey && active === last) { e.preventDefault(); first.focus(); }
    }
  });
  // Keep focus inside the top dialog if something outside receives it
  document.addEventListener('focusin', (e) => {
    const top = topLayer();
    if (!top) return;
    if (!top.contains(e.target) && !e.target.closest('#toast-root')) {
      const items = focusables(dialogEl(top));
      (items[0] || dialogEl(top)).focus({ preventScroll: true });
    }
  });
  function requestClose(container, result) {
    if (container.matches('[data-drawer]')) closeDrawer(container);
    else closeModal(container, result);
  }

  /* ------------------------------------------------------------------ *
   * Modals
   * ------------------------------------------------------------------ */
  function resolveEl(idOrEl) {
    return typeof idOrEl === 'string' ? document.getElementById(idOrEl) : idOrEl;
  }
  function clearErrors(root) {
    $$('.field.has-error', root).forEach((f) => f.classList.remove('has-error'));
    $$('[aria-invalid="true"]', root).forEach((el) => {
      el.removeAttribute('aria-invalid');
      removeDescribedBy(el, `${fieldId(el)}-error`);
    });
    $$('.field-error', root).forEach((e) => { if (!e.dataset.serverError) { e.hidden = true; e.textContent = ''; } });
    $$('.modal-alert, .wizard-alert', root).forEach((a) => { a.hidden = true; a.textContent = ''; });
  }
  function applyPrefill(root, data) {
    if (!data || typeof data !== 'object') return;
    Object.entries(data).forEach(([key, value]) => {
      $$('input, select, textarea', root).filter((el) => el.name === key || el.id === key).forEach((el) => {
        if (el.type === 'checkbox') {
          el.checked = value === true || value === 'true' || (Array.isArray(value) && value.includes(el.value));
          syncSwitch(el);
        } else if (el.type === 'radio') {
          el.checked = String(el.value) === String(value);
        } else if (el.tagName === 'SELECT' && el.multiple && Array.isArray(value)) {
          Array.from(el.options).forEach((o) => { o.selected = value.map(String).includes(o.value); });
        } else {
          el.value = value == null ? '' : (typeof value === 'object' ? JSON.stringify(value) : String(value));
          if (el.tagName === 'SELECT' && el.dataset.cascadeSource) el.dataset.cascadeSelected = el.value;
        }
      });
      $$(`[data-prefill-text="${CSS.escape(key)}"]`, root).forEach((el) => { el.textContent = value == null ? '' : String(value); });
    });
  }
  /** Open a modal by id or element. opts: {prefill: {...}, opener} */
  function openModal(idOrEl, opts = {}) {
    const modal = resolveEl(idOrEl);
    if (!modal) return null;
    const form = modal.querySelector('form[data-modal-form]');
    if (form) form.reset();
    $$('.switch', modal).forEach(syncSwitch);
    clearErrors(modal);
    modal._prefill = opts.prefill || null;
    applyPrefill(modal, opts.prefill);
    openLayer(modal, { opener: opts.opener, onClose: opts.onClose });
    return modal;
  }
  function closeModal(idOrEl, result) {
    const modal = resolveEl(idOrEl);
    if (!modal) return;
    if (modal.hasAttribute('data-announcement')) dismissAnnouncement(modal);
    closeLayer(modal, result);
  }
  function showModalError(modal, err) {
    const alert = modal.querySelector('.modal-alert');
    if (alert) {
      alert.innerHTML = `${icon('error', 16, 'alert-icon')}<div class="alert-content"><p>${esc(errorMessage(err))}</p>${err && (err.code || err.requestId) ? `<p class="alert-meta">${esc([err.code && err.code !== 'Error' ? t('js.error_code', { code: err.code }) : '', err.requestId ? t('js.request_id', { id: err.requestId }) : ''].filter(Boolean).join(' · '))}</p>` : ''}</div>`;
      alert.hidden = false;
    }
  }

  /**
   * Stratus.confirm({title, message, confirmLabel, cancelLabel, danger}) -> Promise<boolean>
   */
  function confirmDialog(opts = {}) {
    const o = typeof opts === 'string' ? { message: opts } : opts;
    return new Promise((resolve) => {
      let root = document.getElementById('modal-root');
      if (!root) { root = document.createElement('div'); root.id = 'modal-root'; document.body.appendChild(root); }
      const id = nextId('confirm');
      const wrap = document.createElement('div');
      wrap.className = 'modal';
      wrap.id = id;
      wrap.hidden = true;
      wrap.setAttribute('data-modal', '');
      wrap.setAttribute('data-ephemeral', '');
      wrap.innerHTML = `<div class="modal-backdrop" data-modal-close></div>
        <div class="modal-dialog modal-sm${o.danger ? ' is-danger' : ''}" role="dialog" aria-modal="true" aria-labelledby="${id}-title" aria-describedby="${id}-desc">
          <header class="modal-header"><h2 class="modal-title" id="${id}-title">${o.danger ? icon('warning', 18, 'title-icon') : ''}${esc(o.title || t('js.confirm_title'))}</h2></header>
          <div class="modal-body" id="${id}-desc"><p>${esc(o.message || '')}</p></div>
          <footer class="modal-footer">
            <button type="button" class="btn btn-secondary" data-modal-close>${esc(o.cancelLabel || t('js.cancel'))}</button>
            <button type="button" class="btn ${o.danger ? 'btn-danger' : 'btn-primary'}" data-confirm-ok>${esc(o.confirmLabel || t('js.confirm'))}</button>
          </footer>
        </div>`;
      root.appendChild(wrap);
      let answered = false;
      wrap.querySelector('[data-confirm-ok]').addEventListener('click', () => { answered = true; closeModal(wrap, true); });
      openLayer(wrap, {
        onClose: () => {
          resolve(answered);
          setTimeout(() => wrap.remove(), 0);
        },
      });
    });
  }

  async function runConfirmModal(modal, btn) {
    const action = modal.dataset.api;
    if (!action) {
      modal.dispatchEvent(new CustomEvent('stratus:confirm', { bubbles: true, detail: { prefill: modal._prefill || {} } }));
      closeModal(modal, true);
      return;
    }
    const params = Object.assign({}, parseJSON(modal.dataset.apiParams, {}), modal._prefill || {});
    setBusy(btn, true);
    try {
      const res = await api(action, params);
      afterSuccess(modal, res, t('js.success'), () => closeModal(modal, true));
    } catch (err) {
      showModalError(modal, err);
      toastError(err);
    } finally {
      setBusy(btn, false);
    }
  }

  /** After a successful API call from element el: redirect to data-success-href, reload, or stay. */
  function afterSuccess(el, res, defaultMessage, beforeNav) {
    const message = el.dataset.successMessage ? fillTemplate(el.dataset.successMessage, res) : defaultMessage;
    const href = el.dataset.successHref;
    el.dispatchEvent(new CustomEvent('stratus:api-success', { bubbles: true, detail: { response: res } }));
    if (beforeNav) beforeNav();
    if (href) {
      goWithToast(fillTemplate(href, res, true), 'success', message);
    } else if (el.hasAttribute('data-no-reload')) {
      toast('success', message);
    } else {
      reloadWithToast('success', message);
    }
  }

  /* ------------------------------------------------------------------ *
   * Announcement
   * ------------------------------------------------------------------ */
  const ANN_KEY = (id) => `stratus.announcement.dismissed.${id}`;
  function initAnnouncement() {
    const modal = document.querySelector('[data-announcement]');
    if (!modal) return;
    let dismissed = false;
    try { dismissed = localStorage.getItem(ANN_KEY(modal.dataset.announcement)) === '1'; } catch (_) { /* ignore */ }
    if (dismissed) { modal.remove(); return; }
    openLayer(modal, { focus: modal.querySelector('[data-modal-close]') });
  }
  function dismissAnnouncement(modal) {
    const box = modal.querySelector('[data-announcement-dismiss]');
    if (box && box.checked) {
      try { localStorage.setItem(ANN_KEY(modal.dataset.announcement), '1'); } catch (_) { /* ignore */ }
    }
  }

  /* ------------------------------------------------------------------ *
   * Drawers
   * ------------------------------------------------------------------ */
  async function openDrawer(idOrEl, opts = {}) {
    const drawer = resolveEl(idOrEl);
    if (!drawer) return null;
    const titleEl = drawer.querySelector('[data-drawer-title]');
    if (titleEl) {
      if (!titleEl.dataset.originalTitle) titleEl.dataset.originalTitle = titleEl.textContent;
      titleEl.textContent = opts.title || titleEl.dataset.originalTitle;
    }
    const body = drawer.querySelector('[data-drawer-body]');
    const src = opts.src || drawer.dataset.drawerSrc;
    openLayer(drawer, { opener: opts.opener, focus: drawer.querySelector('[data-drawer-close]') });
    if (src && body) {
      body.setAttribute('aria-busy', 'true');
      body.innerHTML = `<div class="skeleton" aria-label="${esc(t('js.loading'))}" role="status"><span></span><span></span><span></span><span></span></div>`;
      try {
        const res = await fetch(src, { credentials: 'same-origin', headers: { Accept: 'text/html', 'X-Requested-With': 'fetch' } });
        if (!res.ok) throw new ApiError(t('js.request_failed_status', { status: res.status }), { code: `Http${res.status}`, status: res.status });
        body.innerHTML = await res.text();
        init(body);
      } catch (err) {
        body.innerHTML = `<div class="empty-state is-compact"><p class="empty-title">${esc(t('js.load_failed'))}</p><p class="empty-body">${esc(errorMessage(err))}</p></div>`;
        toastError(err);
      } finally {
        body.removeAttribute('aria-busy');
      }
    }
    return drawer;
  }
  function closeDrawer(idOrEl) {
    const drawer = resolveEl(idOrEl);
    if (drawer) closeLayer(drawer);
  }

  /* ------------------------------------------------------------------ *
   * Dropdown menus (role=menu)
   * ------------------------------------------------------------------ */
  function menuOf(btn) { return document.getElementById(btn.getAttribute('aria-controls')); }
  function popupOf(menu) { return menu ? (menu.closest('.menu-popup') || menu) : null; }
  function menuItems(menu) { return $$('[role="menuitem"]', menu).filter((i) => !i.disabled && i.getAttribute('aria-disabled') !== 'true'); }
  function openMenu(btn, focusWhich = 'first') {
    closeMenus(btn);
    const menu = menuOf(btn);
    const popup = popupOf(menu);
    if (!popup) return;
    popup.hidden = false;
    btn.setAttribute('aria-expanded', 'true');
    placePopup(btn, popup);
    const items = menuItems(menu);
    const target = focusWhich === 'last' ? items[items.length - 1] : items[0];
    if (target) target.focus();
  }
  /**
   * Menus inside scrolling/clipping containers (tables, modals, drawers) are positioned
   * with position:fixed next to their button so they are never clipped; others use CSS.
   */
  function placePopup(btn, popup) {
    popup.classList.remove('flip-up', 'is-fixed');
    popup.style.top = popup.style.left = popup.style.right = popup.style.bottom = '';
    const b = btn.getBoundingClientRect();
    if (btn.closest('.table-scroll, .modal-body, .drawer-body, .tab-panel')) {
      popup.classList.add('is-fixed');
      const w = popup.offsetWidth;
      const h = popup.offsetHeight;
      const alignEnd = popup.classList.contains('menu-end');
      let left = alignEnd ? b.right - w : b.left;
      left = Math.max(8, Math.min(left, window.innerWidth - w - 8));
      let top = b.bottom + 4;
      if (top + h > window.innerHeight - 8 && b.top - h - 4 > 8) top = b.top - h - 4;
      popup.style.left = `${left}px`;
      popup.style.top = `${top}px`;
      return;
    }
    const r = popup.getBoundingClientRect();
    if (r.bottom > window.innerHeight - 8 && r.height < b.top - 8) popup.classList.add('flip-up');
  }
  window.addEventListener('resize', () => closeMenus());
  window.addEventListener('scroll', (e) => {
    // keep fixed menus attached to their button when the page (or a container) scrolls
    if (e.target && e.target.closest && e.target.closest('[role="menu"], .menu-popup')) return;
    $$('.is-fixed:not([hidden])').forEach((p) => {
      const m = p.matches('[role="menu"]') ? p : p.querySelector('[role="menu"]');
      const owner = m && document.querySelector(`[aria-controls="${CSS.escape(m.id)}"]`);
      if (owner) placePopup(owner, p);
    });
  }, true);

  function closeMenu(btn, refocus = false) {
    const popup = popupOf(menuOf(btn));
    if (popup) popup.hidden = true;
    btn.setAttribute('aria-expanded', 'false');
    if (refocus) btn.focus();
  }
  function closeMenus(except) {
    $$('[aria-haspopup="menu"][aria-expanded="true"]').forEach((b) => { if (b !== except) closeMenu(b); });
  }
  document.addEventListener('keydown', (e) => {
    const btn = e.target.closest && e.target.closest('[aria-haspopup="menu"]');
    if (btn && (e.key === 'ArrowDown' || e.key === 'ArrowUp')) {
      e.preventDefault();
      openMenu(btn, e.key === 'ArrowUp' ? 'last' : 'first');
      return;
    }
    const menu = e.target.closest && e.target.closest('[role="menu"]');
    if (!menu) return;
    const owner = document.querySelector(`[aria-controls="${CSS.escape(menu.id)}"]`);
    const items = menuItems(menu);
    const idx = items.indexOf(document.activeElement);
    switch (e.key) {
      case 'ArrowDown': e.preventDefault(); (items[(idx + 1) % items.length] || items[0])?.focus(); break;
      case 'ArrowUp': e.preventDefault(); (items[(idx - 1 + items.length) % items.length] || items[0])?.focus(); break;
      case 'Home': e.preventDefault(); items[0]?.focus(); break;
      case 'End': e.preventDefault(); items[items.length - 1]?.focus(); break;
      case 'Escape': if (owner) { e.preventDefault(); e.stopPropagation(); closeMenu(owner, true); } break;
      case 'Tab': if (owner) closeMenu(owner); break;
      default:
        if (e.key.length === 1 && /\S/.test(e.key)) {
          const ch = e.key.toLowerCase();
          const start = idx + 1;
          const order = items.slice(start).concat(items.slice(0, start));
          const hit = order.find((i) => i.textContent.trim().toLowerCase().startsWith(ch));
          if (hit) hit.focus();
        }
    }
  }, true);

  /* ------------------------------------------------------------------ *
   * Tables: selection + batch actions
   * ------------------------------------------------------------------ */
  function updateTable(table) {
    const checks = $$('[data-row-check]', table);
    const checked = checks.filter((c) => c.checked);
    const all = $('[data-select-all]', table);
    if (all) {
      all.checked = checks.length > 0 && checked.length === checks.length;
      all.indeterminate = checked.length > 0 && checked.length < checks.length;
    }
    checks.forEach((c) => c.closest('tr')?.classList.toggle('is-selected', c.checked));
    $$('[data-batch-action]', table).forEach((b) => {
      const none = checked.length === 0;
      b.disabled = none;
      const tipId = b.dataset.reasonId;
      const tip = tipId ? document.getElementById(tipId) : null;
      if (none) {
        if (tipId) b.setAttribute('aria-describedby', tipId);
        if (tip) { b.title = tip.textContent; tip.hidden = false; }
      } else {
        b.removeAttribute('aria-describedby');
        b.removeAttribute('title');
        if (tip) tip.hidden = true;
      }
    });
    const count = $('[data-selected-count]', table);
    if (count) count.textContent = checked.length ? t('js.selected_count', { n: checked.length }) : '';
  }
  function selectedRows(table) {
    return $$('[data-row-check]', table).filter((c) => c.checked).map((c) => {
      const tr = c.closest('tr');
      return { id: tr?.dataset.rowId || c.value, name: tr?.dataset.rowName || c.value };
    });
  }
  async function runBatch(btn) {
    const table = btn.closest('[data-table]');
    if (!table) return;
    const rows = selectedRows(table);
    if (!rows.length) return;
    const ids = rows.map((r) => r.id);
    const label = btn.textContent.trim();
    const ev = new CustomEvent('stratus:batch', { bubbles: true, cancelable: true, detail: { action: btn.dataset.batchAction, ids, names: rows.map((r) => r.name), button: btn } });
    const proceed = table.dispatchEvent(ev);
    const apiAction = btn.dataset.batchApi;
    if (!proceed || !apiAction) return;
    const names = rows.map((r) => r.name).join(', ');
    const message = btn.dataset.batchConfirm
      ? format(btn.dataset.batchConfirm, { n: ids.length, names, action: label })
      : t('js.batch_confirm', { action: label, n: ids.length });
    const ok = await confirmDialog({ title: label, message, danger: btn.dataset.danger === 'true', confirmLabel: label });
    if (!ok) return;
    const param = btn.dataset.batchParam || 'Id';
    const extra = parseJSON(btn.dataset.batchExtra, {});
    setBusy(btn, true);
    let okCount = 0;
    const failures = [];
    try {
      if (btn.dataset.batchMode === 'list') {
        try { await api(apiAction, Object.assign({}, extra, { [param]: ids })); okCount = ids.length; } catch (err) { failures.push(err); }
      } else {
        for (const id of ids) {
          try { await api(apiAction, Object.assign({}, extra, { [param]: id })); okCount += 1; } catch (err) { failures.push(err); }
        }
      }
    } finally {
      setBusy(btn, false);
      updateTable(table);
    }
    if (!failures.length) {
      const msg = btn.dataset.successMessage ? format(btn.dataset.successMessage, { n: okCount }) : t('js.batch_done', { action: label, ok: okCount });
      reloadWithToast('success', msg);
    } else {
      const msg = t('js.batch_partial', { action: label, ok: okCount, failed: failures.length, message: errorMessage(failures[0]) });
      if (okCount > 0) reloadWithToast('error', msg);
      else toast('error', msg, { detail: failures[0].requestId ? t('js.request_id', { id: failures[0].requestId }) : '' });
    }
  }

  /* ------------------------------------------------------------------ *
   * Generic [data-api] buttons (single API call with optional confirm)
   * ------------------------------------------------------------------ */
  async function runApiButton(btn) {
    const action = btn.dataset.api;
    const params = parseJSON(btn.dataset.apiParams, {});
    if (btn.dataset.confirm) {
      const ok = await confirmDialog({
        title: btn.dataset.confirmTitle || btn.textContent.trim() || t('js.confirm_title'),
        message: btn.dataset.confirm,
        danger: btn.dataset.danger === 'true',
        confirmLabel: btn.dataset.confirmLabel || undefined,
      });
      if (!ok) return;
    }
    setBusy(btn, true);
    try {
      const res = await api(action, params);
      afterSuccess(btn, res, t('js.success'));
    } catch (err) {
      toastError(err);
      btn.dispatchEvent(new CustomEvent('stratus:api-error', { bubbles: true, detail: { error: err } }));
    } finally {
      setBusy(btn, false);
    }
  }

  /* ------------------------------------------------------------------ *
   * Form serialisation (wizard + form modal)
   * ------------------------------------------------------------------ */
  function coerce(v, type) {
    switch (type) {
      case 'number': case 'int': case 'integer': { const n = Number(v); return Number.isNaN(n) ? v : (type === 'number' ? n : Math.trunc(n)); }
      case 'boolean': case 'bool': return v === true || v === 'true' || v === '1' || v === 'on';
      case 'json': return parseJSON(v, v);
      case 'list': return Array.isArray(v) ? v : String(v).split(',').map((s) => s.trim()).filter(Boolean);
      case 'string': return String(v);
      default: return v;
    }
  }
  function setPath(obj, name, value) {
    const parts = name.split('.');
    let cur = obj;
    for (let i = 0; i < parts.length; i += 1) {
      const key = /^\d+$/.test(parts[i]) ? Number(parts[i]) : parts[i];
      if (i === parts.length - 1) { cur[key] = value; return; }
      const nextIsIndex = /^\d+$/.test(parts[i + 1]);
      if (cur[key] == null || typeof cur[key] !== 'object') cur[key] = nextIsIndex ? [] : {};
      cur = cur[key];
    }
  }
  function compact(v) {
    if (Array.isArray(v)) return v.filter((x) => x !== undefined).map(compact);
    if (v && typeof v === 'object') { Object.keys(v).forEach((k) => { v[k] = compact(v[k]); }); }
    return v;
  }
  /**
   * Serialise a form into an API body: input name = parameter name; dotted names nest
   * (SystemDisk.Category), numeric segments build arrays (Tag.0.Key); type=number -> number;
   * checkbox -> true/false (several checkboxes sharing a name -> list of checked values);
   * empty optional fields are omitted; data-value-type coerces (number|int|boolean|json|list|string).
   */
  function serializeForm(form) {
    const out = {};
    const seen = new Set();
    Array.from(form.elements).forEach((el) => {
      const name = el.name;
      if (!name || el.disabled || el.dataset.submit === 'false' || name === 'csrf_token') return;
      if (['submit', 'button', 'reset', 'file', 'image'].includes(el.type)) return;
      if (isSkipped(el, form)) return;
      let v;
      if (el.type === 'radio') {
        if (!el.checked) return;
        v = el.value;
      } else if (el.type === 'checkbox') {
        const group = Array.from(form.elements).filter((x) => x.type === 'checkbox' && x.name === name);
        if (group.length > 1) {
          if (seen.has(name)) return;
          seen.add(name);
          v = group.filter((x) => x.checked && !x.disabled).map((x) => x.value);
        } else if (el.hasAttribute('value') && el.value !== 'on' && el.dataset.valueType !== 'boolean') {
          if (!el.checked) return;
          v = el.value;
        } else {
          v = el.checked;
        }
      } else if (el.tagName === 'SELECT' && el.multiple) {
        v = Array.from(el.selectedOptions).map((o) => o.value);
        if (!v.length) return;
      } else {
        v = el.value;
        if (v === '' || v == null) return;
        if (el.type === 'number') { const n = Number(v); v = Number.isNaN(n) ? v : n; }
      }
      if (el.dataset.valueType) v = Array.isArray(v) && el.dataset.valueType !== 'list' ? v.map((x) => coerce(x, el.dataset.valueType)) : coerce(v, el.dataset.valueType);
      setPath(out, name, v);
    });
    return compact(out);
  }

  /* ------------------------------------------------------------------ *
   * Validation (wizard steps, form modals)
   * ------------------------------------------------------------------ */
  function isSkipped(el, container) {
    for (let p = el.parentElement; p && p !== container; p = p.parentElement) {
      if (p.hidden && !p.matches('.wizard-panel')) return true;
    }
    return false;
  }
  function fieldId(el) {
    if (el.type === 'radio') {
      const g = el.closest('[role="radiogroup"]');
      if (g && g.id) return g.id;
    }
    return el.id || el.name;
  }
  function addDescribedBy(el, id) {
    const ids = (el.getAttribute('aria-describedby') || '').split(/\s+/).filter(Boolean);
    if (!ids.includes(id)) ids.push(id);
    el.setAttribute('aria-describedby', ids.join(' '));
  }
  function removeDescribedBy(el, id) {
    const ids = (el.getAttribute('aria-describedby') || '').split(/\s+/).filter((x) => x && x !== id);
    if (ids.length) el.setAttribute('aria-describedby', ids.join(' ')); else el.removeAttribute('aria-describedby');
  }
  function setFieldError(el, message) {
    const fid = fieldId(el);
    const target = el.type === 'radio' ? (el.closest('[role="radiogroup"]') || el) : el;
    const errEl = document.getElementById(`${fid}-error`);
    target.setAttribute('aria-invalid', 'true');
    if (errEl) {
      errEl.textContent = message;
      errEl.hidden = false;
      addDescribedBy(target, errEl.id);
    }
    target.closest('.field')?.classList.add('has-error');
  }
  function clearFieldError(el) {
    const target = el.type === 'radio' ? (el.closest('[role="radiogroup"]') || el) : el;
    if (target.getAttribute('aria-invalid') !== 'true' && !target.closest('.field.has-error')) return;
    const fid = fieldId(el);
    const errEl = document.getElementById(`${fid}-error`);
    target.removeAttribute('aria-invalid');
    if (errEl) { errEl.hidden = true; errEl.textContent = ''; removeDescribedBy(target, errEl.id); }
    target.closest('.field')?.classList.remove('has-error');
  }
  function messageFor(el) {
    if (el.dataset.errorMessage && !el.validity.valueMissing) return el.dataset.errorMessage;
    if (el.validity.valueMissing) {
      if (el.dataset.requiredMessage) return el.dataset.requiredMessage;
      return (el.tagName === 'SELECT' || el.type === 'radio') ? t('js.select_required') : t('js.required');
    }
    return el.validationMessage || t('js.required');
  }
  /** Validate the fields inside container; shows inline errors; returns true if valid. */
  function validate(container, { focus = true } = {}) {
    let firstBad = null;
    const doneRadio = new Set();
    $$('input, select, textarea', container).forEach((el) => {
      if (el.disabled || el.type === 'hidden' || !el.willValidate && el.type !== 'radio' || isSkipped(el, container)) return;
      if (el.type === 'radio') {
        if (doneRadio.has(el.name)) return;
        doneRadio.add(el.name);
        const group = $$(`input[type="radio"][name="${CSS.escape(el.name)}"]`, container);
        const rg = el.closest('[role="radiogroup"]');
        const required = group.some((r) => r.required) || rg?.getAttribute('aria-required') === 'true';
        if (required && !group.some((r) => r.checked)) {
          setFieldError(el, t('js.select_required'));
          firstBad = firstBad || group.find((r) => !r.disabled) || el;
        } else clearFieldError(el);
        return;
      }
      if (el.tagName === 'SELECT' && el.required && el.selectedOptions.length && el.selectedOptions[0].disabled && el.value === '') {
        // disabled placeholder (e.g. "No options available") counts as missing
      }
      if (!el.checkValidity()) {
        setFieldError(el, messageFor(el));
        firstBad = firstBad || el;
      } else clearFieldError(el);
    });
    if (firstBad && focus) {
      firstBad.focus();
      if (firstBad.scrollIntoView) firstBad.scrollIntoView({ block: 'center', behavior: 'smooth' });
    }
    return !firstBad;
  }
  // live re-validation of fields that are currently flagged
  function onFieldChanged(e) {
    const el = e.target;
    if (!(el instanceof HTMLElement) || !el.matches('input, select, textarea')) return;
    if (el.matches('.switch')) syncSwitch(el);
    const flagged = el.getAttribute('aria-invalid') === 'true' || el.closest('.field.has-error');
    if (!flagged) return;
    if (el.type === 'radio') { clearFieldError(el); return; }
    if (el.checkValidity()) clearFieldError(el);
  }

  /* ------------------------------------------------------------------ *
   * Wizard
   * ------------------------------------------------------------------ */
  function labelText(el, form) {
    if (el.type === 'radio') {
      const rg = el.closest('[role="radiogroup"]');
      const lab = rg && document.getElementById(rg.getAttribute('aria-labelledby'));
      if (lab) return (lab.querySelector('.field-label-text') || lab).textContent.trim();
    }
    const lab = el.id ? form.querySelector(`label[for="${CSS.escape(el.id)}"]`) : el.closest('label');
    if (lab) return (lab.querySelector('.field-label-text') || lab).textContent.replace(/\*\s*$/, '').trim();
    return el.getAttribute('aria-label') || el.name;
  }
  function displayValue(el, form) {
    if (el.type === 'radio') {
      const checked = $$(`input[type="radio"][name="${CSS.escape(el.name)}"]`, form).find((r) => r.checked);
      if (!checked) return '';
      const lab = form.querySelector(`label[for="${CSS.escape(checked.id)}"]`);
      return ((lab && (lab.querySelector('.radio-label') || lab).textContent) || checked.value).trim();
    }
    if (el.type === 'checkbox') return el.checked ? t('js.yes') : t('js.no');
    if (el.type === 'password') return el.value ? '••••••••' : '';
    if (el.tagName === 'SELECT') {
      return Array.from(el.selectedOptions).filter((o) => o.value !== '').map((o) => o.textContent.trim()).join(', ');
    }
    const v = el.value.trim();
    return v && el.dataset.unit ? `${v} ${el.dataset.unit}` : v;
  }
  function buildSummary(form, panels) {
    const box = $('[data-wizard-summary]', form);
    if (!box) return;
    box.innerHTML = '';
    panels.forEach((panel, i) => {
      if (panel.hasAttribute('data-summary-step')) return;
      const title = $('.wizard-panel-title', panel)?.textContent.trim() || panel.dataset.step;
      const section = document.createElement('section');
      section.className = 'summary-section';
      const hid = nextId('summary-h');
      section.setAttribute('aria-labelledby', hid);
      section.innerHTML = `<header class="summary-head"><h3 id="${hid}">${esc(title)}</h3><button type="button" class="link-action" data-wizard-goto="${i}" aria-label="${esc(t('js.edit_step', { step: title }))}">${esc(t('js.edit'))}</button></header>`;
      const dl = document.createElement('dl');
      dl.className = 'describe cols-2';
      const seen = new Set();
      $$('input, select, textarea', panel).forEach((el) => {
        if (!el.name || el.type === 'hidden' || el.dataset.summary === 'false' || isSkipped(el, panel)) return;
        if (['submit', 'button', 'reset'].includes(el.type)) return;
        const key = el.type === 'radio' ? `r:${el.name}` : (el.id || el.name);
        if (seen.has(key)) return;
        seen.add(key);
        const value = displayValue(el, form);
        const item = document.createElement('div');
        item.className = 'describe-item';
        item.innerHTML = `<dt>${esc(labelText(el, form))}</dt><dd>${value ? esc(value) : `<span class="muted">${esc(t('js.empty_value'))}</span>`}</dd>`;
        dl.appendChild(item);
      });
      section.appendChild(dl);
      box.appendChild(section);
    });
  }
  function initWizard(form) {
    if (form._wizard) return;
    const panels = $$('.wizard-panel', form).filter((p) => p.closest('[data-wizard]') === form);
    const indicators = $$('.wizard-step', form);
    const prev = $('[data-wizard-prev]', form);
    const next = $('[data-wizard-next]', form);
    const submit = $('[data-wizard-submit]', form);
    const progress = $('[data-wizard-progress]', form);
    const alertBox = $('.wizard-alert', form);
    let index = Math.max(0, panels.findIndex((p) => !p.hidden));
    const state = { busy: false };

    function show(i, { focusTitle = true } = {}) {
      index = Math.max(0, Math.min(i, panels.length - 1));
      panels.forEach((p, j) => { p.hidden = j !== index; });
      indicators.forEach((li, j) => {
        li.classList.toggle('is-current', j === index);
        li.classList.toggle('is-done', j < index);
        if (j === index) li.setAttribute('aria-current', 'step'); else li.removeAttribute('aria-current');
      });
      if (prev) prev.hidden = index === 0;
      const last = index === panels.length - 1;
      if (next) next.hidden = last;
      if (submit) submit.hidden = !last;
      if (progress) progress.textContent = t('js.step_of', { n: index + 1, total: panels.length });
      if (panels[index].hasAttribute('data-summary-step')) buildSummary(form, panels);
      if (focusTitle) {
        const title = $('.wizard-panel-title', panels[index]);
        if (title) title.focus({ preventScroll: true });
        form.scrollIntoView({ block: 'start', behavior: 'smooth' });
      }
      form.dispatchEvent(new CustomEvent('stratus:wizard-step', { bubbles: true, detail: { index, step: panels[index].dataset.step } }));
    }
    function goNext() {
      if (!validate(panels[index])) return false;
      show(index + 1);
      return true;
    }
    prev?.addEventListener('click', () => show(index - 1));
    next?.addEventListener('click', goNext);
    form.addEventListener('click', (e) => {
      const go = e.target.closest('[data-wizard-goto]');
      if (go && form.contains(go)) show(Number(go.dataset.wizardGoto));
    });
    form.addEventListener('submit', async (e) => {
      e.preventDefault();
      if (index < panels.length - 1) { goNext(); return; }
      if (state.busy) return;
      // validate every step; jump to the first invalid one
      for (let i = 0; i < panels.length; i += 1) {
        if (panels[i].hasAttribute('data-summary-step')) continue;
        if (!validate(panels[i], { focus: false })) {
          show(i, { focusTitle: false });
          validate(panels[i]);
          return;
        }
      }
      const body = serializeForm(form);
      state.busy = true;
      setBusy(submit, true);
      if (alertBox) { alertBox.hidden = true; alertBox.textContent = ''; }
      try {
        const res = await api(form.dataset.api, body);
        form.dispatchEvent(new CustomEvent('stratus:api-success', { bubbles: true, detail: { response: res, body } }));
        const msg = form.dataset.successMessage ? fillTemplate(form.dataset.successMessage, res) : t('js.created');
        if (form.dataset.successHref) {
          toast('success', msg);
          goWithToast(fillTemplate(form.dataset.successHref, res, true), 'success', msg);
        } else {
          toast('success', msg);
        }
      } catch (err) {
        if (alertBox) {
          alertBox.innerHTML = `${icon('error', 16, 'alert-icon')}<div class="alert-content"><p class="alert-title">${esc(errorMessage(err))}</p>${err.code || err.requestId ? `<p class="alert-meta">${esc([err.code && err.code !== 'Error' ? t('js.error_code', { code: err.code }) : '', err.requestId ? t('js.request_id', { id: err.requestId }) : ''].filter(Boolean).join(' · '))}</p>` : ''}</div>`;
          alertBox.hidden = false;
          alertBox.scrollIntoView({ block: 'nearest', behavior: 'smooth' });
        }
        toastError(err);
        form.dispatchEvent(new CustomEvent('stratus:api-error', { bubbles: true, detail: { error: err, body } }));
      } finally {
        state.busy = false;
        setBusy(submit, false);
      }
    });
    form._wizard = { show, next: goNext, get index() { return index; } };
    show(index, { focusTitle: false });
  }

  /* ------------------------------------------------------------------ *
   * Form modals
   * ------------------------------------------------------------------ */
  document.addEventListener('submit', async (e) => {
    const form = e.target;
    if (!(form instanceof HTMLFormElement) || !form.matches('[data-modal-form]')) return;
    e.preventDefault();
    const modal = form.closest('[data-modal]');
    if (!validate(form)) return;
    const submitBtn = form.querySelector('[type="submit"]');
    const alertBox = form.querySelector('.modal-alert');
    if (alertBox) alertBox.hidden = true;
    setBusy(submitBtn, true);
    const body = serializeForm(form);
    try {
      const res = await api(form.dataset.api, body);
      afterSuccess(form, res, t('js.success'), () => closeModal(modal, true));
    } catch (err) {
      showModalError(modal || form, err);
      toastError(err);
    } finally {
      setBusy(submitBtn, false);
    }
  });

  /* ------------------------------------------------------------------ *
   * Cascading selects
   * ------------------------------------------------------------------ */
  function depValue(id) {
    const el = document.getElementById(id);
    if (!el) return '';
    if (el.matches('input[type="checkbox"]')) return el.checked ? (el.value || 'true') : '';
    if (el.matches('input, select, textarea')) return el.value;
    return el.querySelector('input:checked')?.value || '';
  }
  function depLabel(id) {
    const lab = document.getElementById(`${id}-label`) || document.querySelector(`label[for="${CSS.escape(id)}"]`);
    return lab ? (lab.querySelector('.field-label-text') || lab).textContent.trim() : id;
  }
  function setOptions(sel, options, { placeholder = null, disabledPlaceholder = false } = {}) {
    sel.innerHTML = '';
    if (placeholder != null) {
      const o = new Option(placeholder, '');
      if (disabledPlaceholder) o.disabled = true;
      sel.appendChild(o);
    }
    options.forEach(({ value, label }) => sel.appendChild(new Option(label, value)));
  }
  function cascadeDeps(sel) {
    return (sel.dataset.cascadeDepends || '').split(',').map((s) => s.trim()).filter(Boolean);
  }
  async function loadCascade(sel) {
    const deps = cascadeDeps(sel);
    const token = (sel._cascadeToken || 0) + 1;
    sel._cascadeToken = token;
    const wanted = sel.value || sel.dataset.cascadeSelected || '';
    const missing = deps.find((d) => !depValue(d));
    const finish = () => { sel.dispatchEvent(new Event('change', { bubbles: true })); };
    if (missing) {
      setOptions(sel, [], { placeholder: t('js.cascade_wait', { field: depLabel(missing) }), disabledPlaceholder: true });
      sel.value = '';
      finish();
      return;
    }
    const map = parseJSON(sel.dataset.cascadeParamMap, {});
    const params = Object.assign({}, parseJSON(sel.dataset.cascadeParams, {}));
    deps.forEach((d) => { params[map[d] || d] = depValue(d); });
    sel.disabled = true;
    sel.setAttribute('aria-busy', 'true');
    sel.closest('.select-wrap')?.classList.add('is-loading');
    setOptions(sel, [], { placeholder: t('js.loading'), disabledPlaceholder: true });
    let ok = true;
    try {
      const res = await api(sel.dataset.cascadeSource, params);
      if (token !== sel._cascadeToken) return;
      let list = getPath(res, sel.dataset.cascadeList);
      if (list && !Array.isArray(list) && typeof list === 'object') {
        const inner = Object.values(list).find(Array.isArray); // Aliyun style {VSwitches: {VSwitch: [...]}}
        list = inner || [];
      }
      if (!Array.isArray(list)) list = [];
      const vKey = sel.dataset.cascadeValue || 'Id';
      const lKey = sel.dataset.cascadeLabel || vKey;
      const opts = list.map((item) => {
        if (item == null || typeof item !== 'object') return { value: String(item), label: String(item) };
        const value = getPath(item, vKey);
        const label = lKey.includes('{') ? fillTemplate(lKey, item) : getPath(item, lKey);
        return { value: value == null ? '' : String(value), label: label == null || label === '' ? String(value ?? '') : String(label) };
      });
      if (!opts.length) {
        setOptions(sel, [], { placeholder: t('js.no_options'), disabledPlaceholder: true });
        sel.value = '';
      } else {
        const ph = sel.dataset.cascadePlaceholder;
        setOptions(sel, opts, ph ? { placeholder: ph } : {});
        if (wanted && opts.some((o) => o.value === wanted)) sel.value = wanted;
        else if (ph) sel.value = '';
        else sel.selectedIndex = 0;
      }
    } catch (err) {
      if (token !== sel._cascadeToken) return;
      ok = false;
      setOptions(sel, [], { placeholder: t('js.cascade_failed'), disabledPlaceholder: true });
      sel.value = '';
      toastError(err);
    } finally {
      if (token === sel._cascadeToken) {
        sel.disabled = false;
        sel.removeAttribute('aria-busy');
        sel.closest('.select-wrap')?.classList.remove('is-loading');
        sel.dispatchEvent(new CustomEvent('stratus:cascade-loaded', { bubbles: true, detail: { ok } }));
        finish();
      }
    }
  }
  function initCascade(sel) {
    if (sel._cascadeInit) return;
    sel._cascadeInit = true;
    const deps = cascadeDeps(sel);
    deps.forEach((id) => {
      const el = document.getElementById(id);
      if (!el) return;
      el.addEventListener('change', (e) => {
        if (e.target !== el && !el.contains(e.target)) return;
        loadCascade(sel);
      });
    });
    const hasReal = Array.from(sel.options).some((o) => o.value !== '');
    if (!hasReal && sel.dataset.cascadeInitial !== 'false') {
      if (deps.every((d) => depValue(d))) loadCascade(sel);
      else {
        const missing = deps.find((d) => !depValue(d));
        setOptions(sel, [], { placeholder: t('js.cascade_wait', { field: depLabel(missing) }), disabledPlaceholder: true });
      }
    }
  }

  /* ------------------------------------------------------------------ *
   * Status badges with live polling
   * ------------------------------------------------------------------ */
  const TRANSITIONAL = new Set(['Pending', 'Starting', 'Stopping', 'Creating', 'Deleting', 'Attaching', 'Detaching', 'Rebooting', 'Restarting', 'Modifying', 'Releasing', 'Resizing', 'Initializing', 'Configuring', 'Updating', 'Binding', 'Unbinding', 'Expiring', 'Migrating', 'Provisioning', 'Processing']);
  const GREEN = new Set(['Running', 'Available', 'Active', 'InUse', 'Normal', 'Success', 'Succeeded', 'Enabled', 'Attached', 'Bound', 'Healthy', 'Completed', 'Paid']);
  const RED = new Set(['Error', 'Failed', 'Abnormal', 'Unhealthy', 'Locked', 'Rejected', 'Overdue']);
  const ORANGE = new Set(['Expired', 'Warning', 'Insufficient', 'Suspended']);
  function statusColor(s) {
    if (GREEN.has(s)) return 'green';
    if (TRANSITIONAL.has(s)) return 'blue';
    if (RED.has(s)) return 'red';
    if (ORANGE.has(s)) return 'orange';
    return 'grey';
  }
  function statusLabel(badge, status) {
    const prefix = badge.dataset.pollLabelPrefix || 'js.status.';
    return has(prefix + status) ? t(prefix + status) : status;
  }
  /** Update a badge element to a new status (text + colour). */
  function setBadgeStatus(badge, status) {
    const color = statusColor(status);
    badge.className = badge.className.replace(/\bbadge-(green|blue|grey|red|orange)\b/g, '').replace(/\bis-transitional\b/g, '').replace(/\s+/g, ' ').trim();
    badge.classList.add(`badge-${color}`);
    if (color === 'blue') badge.classList.add('is-transitional');
    badge.dataset.status = status;
    const label = badge.querySelector('.badge-label');
    if (label) label.textContent = statusLabel(badge, status);
  }
  function startPolling(badge) {
    if (badge._polling || !badge.dataset.pollApi) return;
    if (!TRANSITIONAL.has(badge.dataset.status)) return;
    badge._polling = true;
    const initial = badge.dataset.status;
    const interval = Number(badge.dataset.pollInterval) || 2000;
    let failures = 0;
    const tick = async () => {
      if (!badge.isConnected) { badge._polling = false; return; }
      try {
        const res = await api(badge.dataset.pollApi, parseJSON(badge.dataset.pollParams, {}));
        failures = 0;
        const status = getPath(res, badge.dataset.pollField || 'Status');
        if (status && status !== badge.dataset.status) setBadgeStatus(badge, String(status));
      } catch (err) {
        failures += 1;
        if (failures >= 5) { badge._polling = false; badge.classList.add('poll-failed'); return; }
      }
      if (TRANSITIONAL.has(badge.dataset.status)) {
        setTimeout(tick, interval * (failures ? Math.min(2 ** failures, 8) : 1));
        return;
      }
      badge._polling = false;
      badge.dispatchEvent(new CustomEvent('stratus:status-settled', { bubbles: true, detail: { status: badge.dataset.status, previous: initial } }));
      if (badge.hasAttribute('data-poll-reload')) window.location.reload();
    };
    setTimeout(tick, interval);
  }

  /* ------------------------------------------------------------------ *
   * Tabs
   * ------------------------------------------------------------------ */
  function activateTab(tab, { focus = false, updateHash = true } = {}) {
    const list = tab.closest('[role="tablist"]');
    if (!list) return;
    $$('[role="tab"]', list).forEach((tb) => {
      const on = tb === tab;
      tb.setAttribute('aria-selected', on ? 'true' : 'false');
      tb.tabIndex = on ? 0 : -1;
      const panel = document.getElementById(tb.getAttribute('aria-controls'));
      if (panel) panel.hidden = !on;
    });
    if (focus) tab.focus();
    const panel = document.getElementById(tab.getAttribute('aria-controls'));
    if (panel && panel.dataset.tabSrc && !panel.dataset.tabLoaded) loadTabPanel(panel);
    if (updateHash && tab.dataset.tab) {
      try { history.replaceState(history.state, '', `#${tab.dataset.tab}`); } catch (_) { /* ignore */ }
    }
    tab.dispatchEvent(new CustomEvent('stratus:tab', { bubbles: true, detail: { key: tab.dataset.tab } }));
  }
  async function loadTabPanel(panel) {
    panel.dataset.tabLoaded = '1';
    panel.setAttribute('aria-busy', 'true');
    panel.innerHTML = `<div class="skeleton" role="status" aria-label="${esc(t('js.loading'))}"><span></span><span></span><span></span></div>`;
    try {
      const res = await fetch(panel.dataset.tabSrc, { credentials: 'same-origin', headers: { Accept: 'text/html', 'X-Requested-With': 'fetch' } });
      if (!res.ok) throw new ApiError(t('js.request_failed_status', { status: res.status }), { code: `Http${res.status}` });
      panel.innerHTML = await res.text();
      init(panel);
    } catch (err) {
      delete panel.dataset.tabLoaded;
      panel.innerHTML = `<div class="empty-state is-compact"><p class="empty-title">${esc(t('js.load_failed'))}</p><p class="empty-body">${esc(errorMessage(err))}</p></div>`;
      toastError(err);
    } finally {
      panel.removeAttribute('aria-busy');
    }
  }
  function tabFromHash() {
    const key = decodeURIComponent((location.hash || '').slice(1));
    if (!key) return;
    $$('[data-tabs] [role="tab"]').forEach((tb) => { if (tb.dataset.tab === key) activateTab(tb, { updateHash: false }); });
  }
  document.addEventListener('keydown', (e) => {
    const tab = e.target.closest && e.target.closest('[role="tab"]');
    if (!tab) return;
    const tabs = $$('[role="tab"]', tab.closest('[role="tablist"]')).filter((x) => !x.disabled);
    const i = tabs.indexOf(tab);
    let target = null;
    if (e.key === 'ArrowRight' || e.key === 'ArrowDown') target = tabs[(i + 1) % tabs.length];
    else if (e.key === 'ArrowLeft' || e.key === 'ArrowUp') target = tabs[(i - 1 + tabs.length) % tabs.length];
    else if (e.key === 'Home') target = tabs[0];
    else if (e.key === 'End') target = tabs[tabs.length - 1];
    if (target) { e.preventDefault(); activateTab(target, { focus: true }); }
  });
  window.addEventListener('hashchange', tabFromHash);

  /* ------------------------------------------------------------------ *
   * Copy to clipboard
   * ------------------------------------------------------------------ */
  async function copy(text, btn) {
    let ok = false;
    try {
      if (navigator.clipboard && window.isSecureContext) { await navigator.clipboard.writeText(text); ok = true; }
    } catch (_) { ok = false; }
    if (!ok) {
      const ta = document.createElement('textarea');
      ta.value = text;
      ta.setAttribute('readonly', '');
      ta.style.cssText = 'position:fixed;top:-1000px;opacity:0';
      document.body.appendChild(ta);
      ta.select();
      try { ok = document.execCommand('copy'); } catch (_) { ok = false; }
      ta.remove();
    }
    if (ok) {
      toast('success', t('js.copied'), { detail: text, duration: 2500 });
      if (btn) { btn.classList.add('is-copied'); setTimeout(() => btn.classList.remove('is-copied'), 1500); }
    } else toast('error', t('js.copy_failed'));
    return ok;
  }

  /* ------------------------------------------------------------------ *
   * Switches, nav tree, misc
   * ------------------------------------------------------------------ */
  function syncSwitch(el) {
    if (el && el.getAttribute('role') === 'switch') el.setAttribute('aria-checked', el.checked ? 'true' : 'false');
  }
  const NAV_KEY = 'stratus.nav.collapsed';
  function navCollapsed() { try { return new Set(JSON.parse(localStorage.getItem(NAV_KEY) || '[]')); } catch (_) { return new Set(); } }
  function setNavGroup(btn, expanded, persist = true) {
    btn.setAttribute('aria-expanded', expanded ? 'true' : 'false');
    const list = document.getElementById(btn.getAttribute('aria-controls'));
    if (list) list.hidden = !expanded;
    btn.closest('.nav-group')?.classList.toggle('is-collapsed', !expanded);
    if (persist) {
      const key = btn.closest('.nav-group')?.querySelector('.nav-group-btn span, .nav-group-link')?.textContent.trim();
      if (!key) return;
      const set = navCollapsed();
      if (expanded) set.delete(key); else set.add(key);
      try { localStorage.setItem(NAV_KEY, JSON.stringify(Array.from(set))); } catch (_) { /* ignore */ }
    }
  }
  function initNav() {
    const collapsed = navCollapsed();
    $$('[data-nav-toggle]').forEach((btn) => {
      const group = btn.closest('.nav-group');
      const key = group?.querySelector('.nav-group-btn span, .nav-group-link')?.textContent.trim();
      const hasActive = group && group.querySelector('[aria-current="page"]');
      if (key && collapsed.has(key) && !hasActive) setNavGroup(btn, false, false);
    });
  }
  /** Make duplicated tooltip ids unique (macros may be rendered many times). */
  function dedupeTooltipIds(root) {
    const seen = new Set($$('[id]').filter((el) => !root.contains(el)).map((el) => el.id));
    $$('.tooltip[id], .menu-item-reason[id]', root).forEach((tip) => {
      if (!seen.has(tip.id)) { seen.add(tip.id); return; }
      const old = tip.id;
      const fresh = nextId(old);
      tip.id = fresh;
      const owner = tip.parentElement && tip.parentElement.querySelector(`[aria-describedby~="${CSS.escape(old)}"]`);
      if (owner) owner.setAttribute('aria-describedby', owner.getAttribute('aria-describedby').split(/\s+/).map((x) => (x === old ? fresh : x)).join(' '));
      if (owner && owner.dataset.reasonId === old) owner.dataset.reasonId = fresh;
      seen.add(fresh);
    });
  }

  /* ------------------------------------------------------------------ *
   * Delegated events
   * ------------------------------------------------------------------ */
  document.addEventListener('click', (e) => {
    const target = e.target instanceof Element ? e.target : null;
    if (!target) return;

    // menus: toggle / outside click / item click closes
    const toggle = target.closest('[aria-haspopup="menu"]');
    if (toggle) {
      e.preventDefault();
      if (toggle.getAttribute('aria-expanded') === 'true') closeMenu(toggle); else openMenu(toggle);
      return;
    }
    const inPopup = target.closest('.menu-popup, [role="menu"]');
    if (!inPopup) closeMenus();
    const item = target.closest('[role="menuitem"]');
    if (item && !item.disabled) {
      const menu = item.closest('[role="menu"]');
      const owner = menu && document.querySelector(`[aria-controls="${CSS.escape(menu.id)}"]`);
      if (owner) closeMenu(owner);
    }

    const closer = target.closest('[data-modal-close]');
    if (closer) {
      const modal = closer.closest('[data-modal]');
      if (modal && !(closer.classList.contains('modal-backdrop') && modal.hasAttribute('data-static'))) { e.preventDefault(); closeModal(modal, false); }
      return;
    }
    const dclose = target.closest('[data-drawer-close]');
    if (dclose) { e.preventDefault(); closeDrawer(dclose.closest('[data-drawer]')); return; }

    const confirmBtn = target.closest('[data-modal-confirm]');
    if (confirmBtn) { e.preventDefault(); runConfirmModal(confirmBtn.closest('[data-modal]'), confirmBtn); return; }

    const opener = target.closest('[data-open-modal]');
    if (opener && !opener.disabled) {
      e.preventDefault();
      openModal(opener.dataset.openModal, { prefill: parseJSON(opener.dataset.modalPrefill, null), opener });
      return;
    }
    const dopener = target.closest('[data-open-drawer]');
    if (dopener && !dopener.disabled) {
      e.preventDefault();
      openDrawer(dopener.dataset.openDrawer, { src: dopener.dataset.drawerSrc, title: dopener.dataset.drawerTitle, opener: dopener });
      return;
    }
    const batch = target.closest('[data-batch-action]');
    if (batch && !batch.disabled) { e.preventDefault(); runBatch(batch); return; }

    const apiBtn = target.closest('button[data-api], a[data-api]');
    if (apiBtn && !apiBtn.disabled) { e.preventDefault(); runApiButton(apiBtn); return; }

    const confirmLink = target.closest('a[data-confirm][href]');
    if (confirmLink) {
      e.preventDefault();
      confirmDialog({ title: confirmLink.dataset.confirmTitle || confirmLink.textContent.trim(), message: confirmLink.dataset.confirm, danger: confirmLink.dataset.danger === 'true' })
        .then((ok) => { if (ok) window.location.assign(confirmLink.href); });
      return;
    }
    const rowAction = target.closest('[data-row-action]');
    if (rowAction && !rowAction.disabled) {
      const tr = rowAction.closest('tr');
      rowAction.dispatchEvent(new CustomEvent('stratus:row-action', { bubbles: true, detail: { action: rowAction.dataset.rowAction, id: tr?.dataset.rowId, name: tr?.dataset.rowName } }));
      return;
    }
    const copyBtn = target.closest('[data-copy]');
    if (copyBtn) { e.preventDefault(); copy(copyBtn.dataset.copy, copyBtn); return; }

    const tab = target.closest('[role="tab"]');
    if (tab && tab.closest('[data-tabs]')) { e.preventDefault(); activateTab(tab); return; }

    const reload = target.closest('[data-action="reload"]');
    if (reload) { e.preventDefault(); window.location.reload(); return; }

    const navToggle = target.closest('[data-nav-toggle]');
    if (navToggle) { setNavGroup(navToggle, navToggle.getAttribute('aria-expanded') !== 'true'); }
  });

  document.addEventListener('change', (e) => {
    const el = e.target;
    if (!(el instanceof Element)) return;
    if (el.matches('[data-select-all]')) {
      const table = el.closest('[data-table]');
      $$('[data-row-check]', table).forEach((c) => { c.checked = el.checked; });
      updateTable(table);
    } else if (el.matches('[data-row-check]')) {
      updateTable(el.closest('[data-table]'));
    }
    if (el.matches('select[data-autosubmit], input[data-autosubmit]') && el.form) {
      if (typeof el.form.requestSubmit === 'function') el.form.requestSubmit(); else el.form.submit();
    }
    onFieldChanged(e);
  });
  document.addEventListener('input', onFieldChanged);

  /* ------------------------------------------------------------------ *
   * Init
   * ------------------------------------------------------------------ */
  /** Enhance widgets inside root (call again after inserting HTML). */
  function init(root = document) {
    const scope = root === document ? document.body : root;
    if (!scope) return;
    const safe = (fn) => { try { fn(); } catch (err) { console.warn('stratus init:', err); } };
    safe(() => dedupeTooltipIds(scope));
    safe(() => $$('[data-table]', scope).forEach(updateTable));
    safe(() => $$('[data-wizard]', scope).forEach(initWizard));
    safe(() => $$('select[data-cascade-source]', scope).forEach(initCascade));
    safe(() => $$('.badge[data-poll-api]', scope).forEach(startPolling));
    safe(() => $$('.switch[role="switch"]', scope).forEach(syncSwitch));
  }
  function boot() {
    const safe = (fn) => { try { fn(); } catch (err) { console.warn('stratus boot:', err); } };
    safe(() => init(document));
    safe(initNav);
    safe(tabFromHash);
    safe(() => {
      const next = document.querySelector('[data-current-path]');
      if (next && (!next.value || next.value === '/console')) next.value = window.location.pathname + window.location.search;
    });
    safe(() => {
      const pending = sessionStorage.getItem(PENDING_TOAST);
      if (pending) {
        sessionStorage.removeItem(PENDING_TOAST);
        const p = parseJSON(pending, null);
        if (p && p.message) toast(p.kind || 'success', p.message);
      }
    });
    safe(() => {
      const flash = document.getElementById('flash');
      const f = flash && parseJSON(flash.textContent, null);
      if (f && f.message) toast(f.kind || 'info', f.message);
    });
    safe(initAnnouncement);
  }

  window.Stratus = {
    api,
    ApiError,
    toast,
    toastError,
    confirm: confirmDialog,
    openModal,
    closeModal,
    openDrawer,
    closeDrawer,
    t,
    copy,
    serializeForm,
    validate,
    fillTemplate,
    refreshCascade: loadCascade,
    setBadgeStatus,
    statusColor,
    activateTab,
    init,
  };

  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', boot);
  else boot();
})();
