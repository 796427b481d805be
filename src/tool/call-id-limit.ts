/**
 * Longest call id a run takes, in UTF-16 code units. Providers' ids are tens of characters
 * (`toolu_…`, `call_…`, `fc_…`); an id is echoed in every result, event, span and saved approval,
 * so a 10 MB one would be copied into each of them.
 */
export const MAX_CALL_ID_LENGTH = 512;
