// Imported first by main.tsx. zod compiles fast object parsers with `new Function` when it may;
// finding out whether it may is itself an eval, which the app's Content-Security-Policy refuses
// (script-src without 'unsafe-eval') and reports as a violation. Jitless parsing never asks.
import { z } from 'zod';

z.config({ jitless: true });
