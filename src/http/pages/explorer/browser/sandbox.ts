// Opens Apollo's embeddable Sandbox on this gateway's /graphql. Sandbox sends its requests through
// this page (same origin), so the gateway needs no CORS rule for Apollo's site.
import './sandbox.css';
import { readPageConfig } from '../../shared/browser/config.js';
import type { SandboxConfig } from '../sandbox.js';

interface EmbeddedSandboxOptions {
  target: string;
  initialEndpoint: string;
  endpointIsEditable: boolean;
  runTelemetry: boolean;
  initialState: { sharedHeaders: Record<string, string> };
}

declare global {
  interface Window {
    EmbeddedSandbox?: new (options: EmbeddedSandboxOptions) => unknown;
  }
}

const config = readPageConfig<SandboxConfig>();
const script = document.createElement('script');
script.src = config.scriptUrl;
script.addEventListener('load', () => {
  if (!window.EmbeddedSandbox) return;
  document.getElementById('sandbox-fallback')!.hidden = true;
  new window.EmbeddedSandbox({
    target: '#sandbox',
    initialEndpoint: new URL(config.endpoint, location.href).href,
    endpointIsEditable: false,
    runTelemetry: false,
    initialState: { sharedHeaders: config.apiKey ? { 'x-api-key': config.apiKey } : {} },
  });
});
document.head.append(script);
