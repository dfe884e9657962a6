import type { widgetUrls } from './widget.urls.js';

/**
 * The widget script served at /framework/js/<ApplicationID>: plain ES2017, no dependencies, the AE
 * JS framework's surface (`aeJS.settings`, `events`, `trigger`, `user`, `flow`, the `data-ae-*`
 * markup). Its only per-application part is the object at the top; docs/widget.md describes the rest.
 */
export function widgetScript(applicationId: number, urls: ReturnType<typeof widgetUrls>, segment?: string): string {
  const settings = {
    applicationId,
    segment: segment ?? null,
    loginUrl: urls.login,
    registerUrl: urls.register,
    logoutUrl: urls.logout,
    completeUrl: urls.complete,
    sessionUrl: urls.session,
    networkUrl: urls.network(':network'),
    resetPasswordUrl: urls.resetPasswordRequest,
    verifyEmailUrl: urls.verifyEmailRequest,
  };
  // JSON inside a script: `<` escaped so no value can close the script element.
  return `/* Marquee sign-in widget */\n(function (config) {\n${body}\n})(${JSON.stringify(settings).replace(/</g, '\\u003c')});\n`;
}

const body = String.raw`
'use strict';
if (window.aeJS && window.aeJS.__marquee) return;

/** A page's hook that throws is logged and never stops the widget. */
function safely(what, fn, args) {
  try { return fn.apply(null, args || []); } catch (error) { console.error('aeJS: ' + what + ' failed', error); }
}

function handlerList(name) {
  var list = [];
  return {
    addHandler: function (fn) { if (typeof fn === 'function' && list.indexOf(fn) < 0) list.push(fn); return fn; },
    removeHandler: function (fn) { var at = list.indexOf(fn); if (at >= 0) list.splice(at, 1); },
    _fire: function () {
      var args = Array.prototype.slice.call(arguments);
      list.slice().forEach(function (fn) { safely(name + ' handler', fn, args); });
    }
  };
}

var eventNames = ['onFlow', 'onLogin', 'onUser', 'onLogout', 'onWindow', 'onEmailVerify', 'onPasswordReset', 'onActivity'];
var events = {};
eventNames.forEach(function (name) { events[name] = handlerList(name); });

var aeJS = {
  __marquee: true,
  settings: {
    // The application's URLs (read only in effect).
    applicationId: config.applicationId, loginUrl: config.loginUrl, registerUrl: config.registerUrl, logoutUrl: config.logoutUrl,
    // AE's settings, set in AEJSReady. Those that change the flow here are described in docs/widget.md.
    auth_window: false, default_flow_handlers: true, return_url: null, services: null, scopes: {}, sso: false,
    extra_fields: {}, extra_fields_screen: 'after', verify_email: false, verify_email_for_login: false, optins: [],
    flow_css: null, flow_text: {}, language: null, minimum_age: null, mobile_detect: true, partner_code: null, partner_id: null,
    no_email: false, hide_email_form: false, social_first: false, display_error_message: true, close_button: true,
    date_format: null, email_format: null, extra_info: {}, segment: config.segment
  },
  user: null,
  flow: { return: null, step: null, type: null, service: null },
  events: events,
  trigger: { get: {} }
};

// ——— where flows go and come back ———

function here() {
  var url = new URL(location.href);
  url.searchParams.delete('accesstoken');
  url.searchParams.delete('aejs_window');
  return url.toString();
}

/** Where a flow returns to: the explicit URL, the element's data-ae-return, settings.return_url, or this page. */
function returnUrl(element, explicit) {
  var chosen = explicit || (element && element.getAttribute && element.getAttribute('data-ae-return')) || aeJS.settings.return_url;
  return chosen ? new URL(chosen, location.href).toString() : here();
}

function flowUrl(type, service) {
  if (service && service !== 'email') return config.networkUrl.replace(':network', encodeURIComponent(service));
  return type === 'register' ? config.registerUrl : config.loginUrl;
}

function allowedService(service) {
  var offered = aeJS.settings.services;
  if (!service || service === 'email' || !offered) return true;
  return String(offered).split(',').map(function (name) { return name.trim().toLowerCase(); }).indexOf(String(service).toLowerCase()) >= 0;
}

function flowError(code, message, extra) {
  var step = Object.assign({ step: 'error', code: code, error: message }, extra || {});
  aeJS.flow.step = 'error';
  events.onFlow._fire(step);
  return step;
}

var openWindow = null;

/**
 * Starts a hosted flow: the whole page goes there (auth_window false), or a popup does and this page
 * stays (auth_window true; a blocked popup falls back to the page). onFlow says 'authenticate' first.
 */
function startFlow(type, service, element, explicitReturn) {
  if (!allowedService(service)) return flowError(4, 'This sign-in network is not offered here.', { service: service });
  var back = returnUrl(element, explicitReturn);
  aeJS.flow.return = back;
  aeJS.flow.type = type;
  aeJS.flow.service = service || 'email';
  aeJS.flow.step = 'authenticate';
  var target = new URL(flowUrl(type, service));
  var popup = aeJS.settings.auth_window === true || aeJS.settings.auth_window === 'true';
  var comeBack = new URL(back);
  if (popup) comeBack.searchParams.set('aejs_window', '1');
  target.searchParams.set('return', comeBack.toString());
  events.onFlow._fire({ step: 'authenticate', auth_url: target.toString(), return: back, service: aeJS.flow.service, type: type });
  if (popup) {
    var opened = window.open(target.toString(), 'aejs_window', 'width=480,height=720');
    if (opened) return watchWindow(opened, target.toString());
    target.searchParams.set('return', back);
  }
  location.assign(target.toString());
}

function watchWindow(opened, url) {
  openWindow = opened;
  events.onWindow._fire({ type: 'open', url: url });
  var timer = setInterval(function () {
    if (!opened.closed) return;
    clearInterval(timer);
    windowClosed(opened);
  }, 400);
}

function windowClosed(opened) {
  if (openWindow !== opened) return;
  openWindow = null;
  events.onWindow._fire({ type: 'close' });
  // The popup's flow set the session cookie: whoever signed in there is signed in here now.
  return refresh(true);
}

// A popup's flow ends on the site's return page, which hands back to this page and closes.
window.addEventListener('message', function (event) {
  if (event.origin !== location.origin || !event.data || event.data.aejs !== 'window-done') return;
  if (openWindow) { var opened = openWindow; safely('closing the window', function () { opened.close(); }); windowClosed(opened); }
});

// ——— the signed-in user ———

function field(user, name) {
  if (!user) return null;
  if (name === 'services') return user.services.map(function (service) { return service.Service; }).join(', ');
  var data = user.data || {};
  var key = Object.keys(data).filter(function (k) { return k.toLowerCase() === name; })[0];
  return key ? data[key] : null;
}

function render(root) {
  var user = aeJS.user;
  var scope = root && root.querySelectorAll ? root : document;
  scope.querySelectorAll('[data-ae-show]').forEach(function (element) {
    var wanted = element.getAttribute('data-ae-show');
    element.hidden = wanted === 'signed-in' ? !user : wanted === 'signed-out' ? Boolean(user) : element.hidden;
  });
  var all = Array.prototype.slice.call(scope.querySelectorAll('*'));
  if (scope !== document) all.unshift(scope);
  all.forEach(function (element) {
    for (var i = 0; i < element.attributes.length; i += 1) {
      var name = element.attributes[i].name;
      if (name.indexOf('data-ae-user-') !== 0) continue;
      var value = field(user, name.slice('data-ae-user-'.length));
      if (element.tagName === 'IMG') { if (value) element.src = value; else element.removeAttribute('src'); }
      else element.textContent = value == null ? '' : String(value);
    }
  });
}

function loginOnce(token) {
  // A reload of the return page must not report the same sign-in twice.
  try {
    if (sessionStorage.getItem('aejs-login') === token) return false;
    sessionStorage.setItem('aejs-login', token);
  } catch (error) { /* storage refused: report it */ }
  return true;
}

/** A new user object: the page hears onLogin(user, type, sso) for a sign-in, onUser(user, state) always. */
function setUser(user, how) {
  var before = aeJS.user;
  aeJS.user = user || null;
  render();
  if (user) {
    if (how && how.login) {
      aeJS.flow.step = 'login';
      events.onLogin._fire(user, how.login, Boolean(aeJS.settings.sso));
    }
    events.onUser._fire(user, how && how.state ? how.state : 'update');
    verifiedSince(before, user);
  } else if (before) {
    events.onLogout._fire(before);
  }
}

function post(url, fields) {
  var form = new URLSearchParams();
  Object.keys(fields).forEach(function (name) {
    var value = fields[name];
    if (value == null) return;
    (Array.isArray(value) ? value : [value]).forEach(function (one) { form.append(name, String(one)); });
  });
  // A form body keeps the request simple (no preflight); the gateway checks the Origin.
  return fetch(url, { method: 'POST', credentials: 'include', body: form }).then(function (response) {
    return response.json().catch(function () { return {}; }).then(function (body) { return { ok: response.ok, status: response.status, body: body }; });
  });
}

function errorOf(answer) {
  var error = (answer.body && answer.body.error) || {};
  return { code: typeof error.code === 'number' ? error.code : answer.status, message: error.message || 'Something went wrong.' };
}

/**
 * Asks the gateway who is signed in. On load a signed-in fan is 'init'; a page reached by the flow's
 * redirect (an accesstoken in its URL) or a closed flow window is a sign-in (onLogin).
 */
function refresh(afterWindow) {
  return fetch(config.sessionUrl, { credentials: 'include' })
    .then(function (response) { return response.ok ? response.json() : { user: null }; })
    .then(function (body) {
      var before = aeJS.user;
      var token = new URL(location.href).searchParams.get('accesstoken');
      var login = null;
      if (body.user && afterWindow && (!before || before.data.ID !== body.user.data.ID)) login = body.beganWith || 'login';
      if (body.user && !afterWindow && !before && token && loginOnce(token)) login = body.beganWith || 'login';
      if (!afterWindow && !before && token) aeJS.flow.return = here();
      var state = !before && !afterWindow ? 'init' : 'update';
      if (!body.user && !before) return null;
      setUser(body.user, { login: login, state: state });
      return aeJS.user;
    })
    .catch(function (error) { console.error('aeJS: could not read the sign-in state', error); return aeJS.user; });
}

// ——— email: verification and password reset (sent by the gateway) ———

var lastEmail = null;

function sendVerifyEmail(url, email, template) {
  var address = email || field(aeJS.user, 'email') || lastEmail;
  if (!address) return Promise.resolve(flowError(4, 'No email address to verify.', { service: 'email' }));
  var fields = { email: address, return: url ? new URL(url, location.href).toString() : here() };
  if (template) { fields.subject = template.subject; fields.body = template.body; }
  return post(config.verifyEmailUrl, fields).then(function (answer) {
    if (!answer.ok) { var failed = errorOf(answer); return flowError(failed.code, failed.message, { service: 'email' }); }
    try { sessionStorage.setItem('aejs-verify', address); } catch (error) { /* nothing to remember it in */ }
    aeJS.flow.step = 'verify-email';
    events.onFlow._fire({ step: 'verify-email', email: address, service: 'email' });
    events.onEmailVerify._fire('sent', { EmailAddress: address });
    return answer.body;
  }).catch(unreachable);
}

/** The gateway did not answer (or refused the page without CORS): an error step, never an unhandled rejection. */
function unreachable(error) {
  console.error('aeJS: the gateway could not be reached', error);
  return flowError(0, 'The service could not be reached.', { service: 'email' });
}

/** A verification sent from this browser, and the member's address now verified: the flow's last step. */
function verifiedSince(before, user) {
  var sent = null;
  try { sent = sessionStorage.getItem('aejs-verify'); } catch (error) { return; }
  var verified = user.data && user.data.VerifiedEmail;
  if (!sent || !verified || (before && before.data && before.data.VerifiedEmail === verified)) return;
  try { sessionStorage.removeItem('aejs-verify'); } catch (error) { /* ignore */ }
  var email = user.services.filter(function (service) { return service.Service === 'email'; })[0];
  aeJS.flow.step = 'verify-email-ok';
  events.onFlow._fire({ step: 'verify-email-ok', email: verified });
  events.onEmailVerify._fire('verified', { MemberID: user.data.ID, MemberServiceID: email ? email.ID : null, EmailAddress: verified, Service: 'email' });
}

function resetPassword(email, url) {
  var address = email || lastEmail || field(aeJS.user, 'email');
  if (!address && aeJS.settings.default_flow_handlers !== false) address = window.prompt('Your email address, to reset your password:');
  if (!address) return Promise.resolve(flowError(4, 'No email address to send a reset link to.', { service: 'email' }));
  var back = url ? new URL(url, location.href).toString() : here();
  return post(config.resetPasswordUrl, { email: address, return: back }).then(function (answer) {
    if (!answer.ok) { var failed = errorOf(answer); return flowError(failed.code, failed.message, { service: 'email' }); }
    events.onPasswordReset._fire('sent', { EmailAddress: address });
    return answer.body;
  }).catch(unreachable);
}

// ——— the page's own email forms (the page stays) ———

var profileNames = { firstname: 'firstName', surname: 'surname', username: 'username', birthdate: 'birthDate', gender: 'gender', city: 'city', country: 'country', postcode: 'postCode' };

function showError(form, message) {
  if (aeJS.settings.default_flow_handlers === false || aeJS.settings.display_error_message === false) return;
  var box = form.querySelector('[data-ae-error]');
  if (!box) {
    box = document.createElement('p');
    box.setAttribute('data-ae-error', '');
    box.setAttribute('role', 'alert');
    form.appendChild(box);
  }
  box.textContent = message;
}

function submitForm(form) {
  var data = new FormData(form);
  var type = (form.getAttribute('data-ae-type') || 'register') === 'login' ? 'login' : 'register';
  var fields = { type: type, email: data.get('email'), password: data.get('password'), return: returnUrl(form) };
  lastEmail = fields.email;
  Object.keys(profileNames).forEach(function (name) {
    var value = data.get(name) || data.get(profileNames[name]);
    if (value) fields[profileNames[name]] = value;
  });
  var optins = [];
  form.querySelectorAll('input[data-ae-optin]').forEach(function (box) {
    if (!box.checked) return;
    var segment = box.getAttribute('data-ae-optin-segmentid') || aeJS.settings.segment;
    if (segment) optins.push(segment);
  });
  fields.optin = optins;
  if (aeJS.settings.segment && !form.querySelector('input[data-ae-optin]')) fields.segment = aeJS.settings.segment;
  aeJS.flow.return = fields.return;
  aeJS.flow.type = type;
  aeJS.flow.service = 'email';
  return post(config.sessionUrl + '/email', fields).then(function (answer) {
    if (!answer.ok) {
      var failed = errorOf(answer);
      showError(form, failed.message);
      return flowError(failed.code, failed.message, { service: 'email', type: type });
    }
    var result = answer.body;
    if (result.requiredFields && result.requiredFields.length) {
      aeJS.flow.step = 'required-fields';
      events.onFlow._fire({ step: 'required-fields', fields: result.requiredFields, auth_url: result.completeUrl, return: fields.return, service: 'email' });
      // The framework's own screen is the hosted completion step; the page goes there unless it draws its own.
      if (aeJS.settings.default_flow_handlers !== false && aeJS.settings.extra_fields_screen !== 'disabled') {
        aeJS.user = result.user;
        location.assign(result.completeUrl);
        return result;
      }
    }
    events.onFlow._fire({ step: 'login', type: result.type, accesstoken: result.accesstoken, return: fields.return, service: 'email' });
    setUser(result.user, { login: result.type });
    var verify = aeJS.settings.verify_email === true || aeJS.settings.verify_email === 'true';
    if (result.type === 'registration' && verify) return sendVerifyEmail(fields.return, fields.email).then(function () { return result; });
    return result;
  }).catch(function (error) {
    console.error('aeJS: the form could not be sent', error);
    return flowError(0, 'The form could not be sent.', { service: 'email', type: type });
  });
}

// ——— triggers ———

function unsupported(name) {
  return function () { console.warn('aeJS.trigger.' + name + ' is not provided by this service'); return false; };
}

aeJS.trigger.attach = function (element) {
  // Clicks and submits are handled by delegation, so new markup works already; fill in the user's fields.
  var node = element && element.jquery ? element[0] : element;
  render(node && node.querySelectorAll ? node : undefined);
  return true;
};
aeJS.trigger.authenticate = function (service, type, back, scope) {
  if (scope) aeJS.settings.scopes[service] = scope;
  return startFlow(type === 'register' ? 'register' : 'login', service, null, back);
};
aeJS.trigger.flow = function (type, back) { return startFlow(type === 'register' ? 'register' : 'login', 'email', null, back); };
aeJS.trigger.register = function (element) { return startFlow('register', 'email', element && element.getAttribute ? element : null); };
aeJS.trigger.login = function (accesstoken) {
  if (!accesstoken) return Promise.resolve(flowError(15, 'No access token given.'));
  return post(config.sessionUrl + '/token', { accesstoken: accesstoken }).then(function (answer) {
    if (!answer.ok) { var failed = errorOf(answer); return flowError(failed.code, failed.message); }
    setUser(answer.body.user, { login: 'login' });
    return aeJS.user;
  }).catch(unreachable);
};
aeJS.trigger.logout = function (back) {
  var target = typeof back === 'string' ? back : null;
  return fetch(config.sessionUrl + '/logout', { method: 'POST', credentials: 'include' })
    .then(function () { setUser(null); if (target) location.assign(new URL(target, location.href).toString()); })
    .catch(function (error) { console.error('aeJS: sign-out failed', error); });
};
aeJS.trigger.submit = function (form) { var node = form && form.jquery ? form[0] : form; return submitForm(node); };
aeJS.trigger.verify_email = function (url) { return sendVerifyEmail(url); };
aeJS.trigger.send_verify_email = function (url, email, template) { return sendVerifyEmail(url, email, template); };
aeJS.trigger.reset_password = function (email, url) { return resetPassword(email, url); };
aeJS.trigger.verify_reset_password = function (url) { return resetPassword(null, url); };
aeJS.trigger.get.user = function () { return refresh(false); };
aeJS.trigger.get.flow = function () { return aeJS.flow; };
['optin', 'popup', 'remove', 'send_activity', 'activity_sharing'].forEach(function (name) { aeJS.trigger[name] = unsupported(name); });
aeJS.refresh = function () { return refresh(false); };

// ——— markup ———

document.addEventListener('click', function (event) {
  var element = event.target.closest && event.target.closest('[data-ae-login-window],[data-ae-register-window],[data-ae-login-link],[data-ae-register-link],[data-ae-logout-link]');
  if (!element) return;
  event.preventDefault();
  if (element.hasAttribute('data-ae-logout-link')) return aeJS.trigger.logout(element.getAttribute('data-ae-return'));
  if (element.hasAttribute('data-ae-register-window')) return startFlow('register', 'email', element);
  if (element.hasAttribute('data-ae-login-window')) return startFlow('login', 'email', element);
  if (element.hasAttribute('data-ae-register-link')) return startFlow('register', element.getAttribute('data-ae-register-link') || 'email', element);
  startFlow('login', element.getAttribute('data-ae-login-link') || 'email', element);
});

document.addEventListener('submit', function (event) {
  var form = event.target;
  if (!form.matches || !form.matches('form[data-ae-register-form="email"]')) return;
  event.preventDefault();
  submitForm(form);
}, true);

// ——— start ———

window.aeJS = aeJS;

/** The popup's flow came back here: hand over to the page that opened it, and close. */
function handBack() {
  var params = new URL(location.href).searchParams;
  if (params.get('aejs_window') !== '1' || !window.opener || window.opener === window) return false;
  try { window.opener.postMessage({ aejs: 'window-done', accesstoken: params.get('accesstoken') }, location.origin); } catch (error) { return false; }
  window.close();
  return true;
}

function start() {
  if (handBack()) return;
  if (typeof window.AEJSReady === 'function') safely('AEJSReady', window.AEJSReady, [aeJS]);
  render();
  refresh(false);
}
if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
else start();
`;
