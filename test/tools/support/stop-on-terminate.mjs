// For the mover scripts of whileMoving (while-moving.ts): exit at once on SIGTERM while waiting. A
// handled signal runs on the event loop, never inside a mover's synchronous move (rename, copies,
// "moved"), so a stop that comes mid-move takes effect only after the move is whole and reported.
process.on("SIGTERM", () => process.exit(0));
