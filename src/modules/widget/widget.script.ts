import type { widgetUrls } from './widget.urls.js';

/**
 * The widget script served at /framework/js/<ApplicationID>: plain ES2017, no dependencies. Its only
 * per-application part is the settings object at the top; everything it does is in docs/widget.md.
 */
export function widgetScript(applicationId: number, urls: ReturnType<typeof widgetUrls>): string {
  const settings = {
    applicationId,
    loginUrl: urls.login,
    registerUrl: urls.register,
    registerFormUrl: urls.registerEmbedded,
    logoutUrl: urls.logout,
    sessionUrl: urls.session,
    networkUrl: urls.network(':network'),
  };
  // JSON inside a script: `<` escaped so no value can close the script element.
  return `/* Marquee sign-in widget */\n(function (settings) {\n${body}\n})(${JSON.stringify(settings).replace(/</g, '\\u003c')});\n`;
}

const body = String.raw`
'use strict';
if (window.aeJS && window.aeJS.__marquee) return;

function handlerList() {
  var list = [];
  return {
    addHandler: function (fn) { if (typeof fn === 'function' && list.indexOf(fn) < 0) list.push(fn); return fn; },
    removeHandler: function (fn) { var at = list.indexOf(fn); if (at >= 0) list.splice(at, 1); },
    _fire: function () {
      var args = arguments;
      list.slice().forEach(function (fn) { try { fn.apply(null, args); } catch (error) { console.error(error); } });
    }
  };
}

var aeJS = {
  __marquee: true,
  settings: { applicationId: settings.applicationId, loginUrl: settings.loginUrl, registerUrl: settings.registerUrl, logoutUrl: settings.logoutUrl, return_url: null },
  user: null,
  events: { onLogin: handlerList(), onUser: handlerList(), onLogout: handlerList() },
  trigger: {}
};

/** Where the flow comes back to: the element's data-ae-return, settings.return_url, or this page. */
function returnUrl(element) {
  var explicit = element && element.getAttribute && element.getAttribute('data-ae-return');
  if (explicit) return new URL(explicit, location.href).toString();
  if (aeJS.settings.return_url) return new URL(aeJS.settings.return_url, location.href).toString();
  var here = new URL(location.href);
  here.searchParams.delete('accesstoken');
  return here.toString();
}

function go(url, element) {
  var target = new URL(url);
  target.searchParams.set('return', returnUrl(element));
  location.assign(target.toString());
}

aeJS.trigger.login = function (service, element) {
  if (service && service !== 'email') return go(settings.networkUrl.replace(':network', encodeURIComponent(service)), element);
  go(settings.loginUrl, element);
};
aeJS.trigger.register = function (element) { go(settings.registerUrl, element); };
aeJS.trigger.logout = function () {
  return fetch(settings.sessionUrl + '/logout', { method: 'POST', credentials: 'include' })
    .then(function () { setUser(null); })
    .catch(function (error) { console.error('Sign-out failed', error); });
};

function render() {
  var user = aeJS.user;
  document.querySelectorAll('[data-ae-show]').forEach(function (element) {
    var wanted = element.getAttribute('data-ae-show');
    element.hidden = wanted === 'signed-in' ? !user : wanted === 'signed-out' ? Boolean(user) : element.hidden;
  });
  document.querySelectorAll('*').forEach(function (element) {
    for (var i = 0; i < element.attributes.length; i += 1) {
      var name = element.attributes[i].name;
      if (name.indexOf('data-ae-user-') !== 0) continue;
      var field = name.slice('data-ae-user-'.length);
      var key = user && Object.keys(user).filter(function (k) { return k.toLowerCase() === field; })[0];
      var value = key ? user[key] : null;
      if (Array.isArray(value)) value = value.join(', ');
      if (element.tagName === 'IMG') { if (value) element.src = value; else element.removeAttribute('src'); }
      else element.textContent = value == null ? '' : String(value);
    }
  });
}

function setUser(user) {
  var before = aeJS.user;
  aeJS.user = user || null;
  render();
  if (user) {
    aeJS.events.onUser._fire(user);
    var token = new URL(location.href).searchParams.get('accesstoken');
    if (!before && token) aeJS.events.onLogin._fire(user, token);
  } else if (before) {
    aeJS.events.onLogout._fire();
  }
}

function refresh() {
  return fetch(settings.sessionUrl, { credentials: 'include' })
    .then(function (response) { return response.ok ? response.json() : { user: null }; })
    .then(function (body) { setUser(body.user); })
    .catch(function (error) { console.error('Could not read the sign-in state', error); });
}
aeJS.refresh = refresh;

document.addEventListener('click', function (event) {
  var element = event.target.closest && event.target.closest('[data-ae-login-window],[data-ae-register-window],[data-ae-login-link],[data-ae-register-link],[data-ae-logout-link]');
  if (!element) return;
  event.preventDefault();
  if (element.hasAttribute('data-ae-logout-link')) return aeJS.trigger.logout();
  if (element.hasAttribute('data-ae-register-window') || element.hasAttribute('data-ae-register-link')) return aeJS.trigger.register(element);
  aeJS.trigger.login(element.getAttribute('data-ae-login-link'), element);
});

document.addEventListener('submit', function (event) {
  var form = event.target;
  if (!form.matches || !form.matches('form[data-ae-register-form="email"]')) return;
  // A plain top-level POST to the hosted flow, which answers with the redirect to the return URL.
  form.action = settings.registerFormUrl;
  form.method = 'post';
  var field = form.querySelector('input[name="return"]') || form.appendChild(Object.assign(document.createElement('input'), { type: 'hidden', name: 'return' }));
  field.value = returnUrl(form);
}, true);

window.aeJS = aeJS;
function start() {
  if (typeof window.AEJSReady === 'function') window.AEJSReady(aeJS);
  render();
  refresh();
}
if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
else start();
`;
