declare const __VERSION__: string | undefined;

/** This build's version (set by the bundler; `0.0.0-dev` when run from source). */
export const VERSION = typeof __VERSION__ === 'string' ? __VERSION__ : '0.0.0-dev';
