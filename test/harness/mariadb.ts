/** The private MariaDB servers of the tests: the package's own (src/embedded/mariadb.ts), shared with `cdc demo`. */
export * from '../../src/embedded/mariadb.js';
