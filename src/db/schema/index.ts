// Every table of the product, one file per domain. drizzle-kit reads this module to generate
// the migrations in drizzle/; the query builders import it for typed relational queries.
export * from './tenancy.js';
export * from './members.js';
export * from './catalogue.js';
export * from './activities.js';
export * from './presave.js';
export * from './widget.js';
export * from './scoring.js';
export * from './email.js';
export * from './audit.js';
export * from './staff.js';
