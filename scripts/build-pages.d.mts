// Types of build-pages.mjs for the tests that build the pages before loading them.
export declare const pagesDir: string;
export declare function buildPages(): Promise<void>;
export declare function buildPagesIfChanged(): Promise<void>;
export declare function writeChanged(files: { path: string; contents: Uint8Array }[]): void;
