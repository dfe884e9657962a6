// Stylesheets imported by the browser code are bundled by esbuild beside the script.
declare module '*.css';
