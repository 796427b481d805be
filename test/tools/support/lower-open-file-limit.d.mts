/** Sets this process's open-file limit (soft and hard) to `limit`; see lower-open-file-limit.mjs. */
export declare function lowerOpenFileLimit(limit: number): void;
