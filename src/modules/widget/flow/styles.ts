/**
 * The hosted pages' only stylesheet, inline (one request per page): readable on a phone first,
 * 44px touch targets, a visible focus ring, and colours with at least 4.5:1 contrast. The
 * application's look (look.ts) sets the custom properties: --accent and --on-accent (buttons),
 * --link (links on the card), --page and --on-page (the page around the card, the footer).
 */
export const styles = `
*,*::before,*::after{box-sizing:border-box}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1b1b1f;background:var(--page)}
main{max-width:26rem;margin:0 auto;padding:1.5rem 1rem 3rem}
.card{background:#fff;border-radius:12px;padding:1.5rem;box-shadow:0 1px 3px rgba(0,0,0,.12)}
h1{font-size:1.5rem;line-height:1.25;margin:0 0 .25rem}
.lead{margin:0 0 1.25rem;color:#4a4a55}
label{display:block;font-weight:600;margin:1rem 0 .25rem}
.hint{display:block;font-weight:400;font-size:.875rem;color:#4a4a55}
input,select{width:100%;min-height:44px;padding:.5rem .75rem;font:inherit;border:1px solid #767683;border-radius:8px;background:#fff;color:inherit}
input[aria-invalid=true],select[aria-invalid=true]{border-color:#b3261e;border-width:2px}
button,.button{display:flex;align-items:center;justify-content:center;width:100%;min-height:44px;margin-top:1.25rem;padding:.5rem 1rem;font:inherit;font-weight:600;border-radius:8px;border:1px solid var(--accent);background:var(--accent);color:var(--on-accent);text-decoration:none;cursor:pointer}
.button.social{background:#fff;color:#1b1b1f;border-color:#767683;margin-top:.75rem}
:focus-visible{outline:3px solid #e8a400;outline-offset:2px}
.alert{border-left:4px solid #b3261e;background:#fdecea;color:#5f1410;padding:.75rem 1rem;border-radius:4px;margin:0 0 1rem}
.alert:focus{outline:3px solid #e8a400}
.divider{display:flex;align-items:center;gap:.75rem;margin:1.5rem 0 .25rem;color:#4a4a55;font-size:.875rem}
.divider::before,.divider::after{content:"";flex:1;border-top:1px solid #d0d0d8}
.switch{margin:1.5rem 0 0;text-align:center}
.ways{list-style:none;margin:1.25rem 0 0;padding:0;text-align:center}
.ways a{display:inline-block;min-height:44px;padding:.625rem .5rem}
a{color:var(--link)}
.logo{display:block;max-width:12rem;max-height:4rem;width:auto;height:auto;margin:0 auto 1rem}
.page-footer{margin:1.5rem 0 0;text-align:center;font-size:.875rem}
.page-footer a{color:var(--on-page)}
@media (min-width:48rem){main{padding-top:4rem}.card{padding:2rem 2.25rem}}
`;
