/**
 * Checks the server's configuration before `npm run dev` starts `langgraphjs dev`, which reports exit
 * code 0 whatever its server process exited with: a bad variable stops the command here with one line
 * and exit code 1 (settings.ts), before anything is started. A deployed server checks the same
 * settings itself when it loads the graphs.
 */
import "./settings.js";
