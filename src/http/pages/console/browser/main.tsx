// The staff console: one page at /console whose screens are routed in the browser (wouter), with
// every choice (search, tab, filters, page) in the URL, on the console's own GraphQL endpoint.
import './console.css';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './app.js';

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
