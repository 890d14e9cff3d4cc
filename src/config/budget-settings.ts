// Schema of the profile's `budget` section and of config/prices.yaml: token and cost limits, and model prices.
import { join } from 'node:path';
import { existsSync } from 'node:fs';
import { z } from 'zod';
import { parseConfigText } from './parse.js';
import { readConfigFile } from './read-config-file.js';
import { PROJECT_ROOT } from '../paths.js';

/** One model's price, US dollars per million tokens. */
const PriceSchema = z.strictObject({ input: z.number().min(0), output: z.number().min(0) });
export type Price = z.infer<typeof PriceSchema>;

export const PricesSchema = z.record(z.string().min(1), PriceSchema);
export type Prices = z.infer<typeof PricesSchema>;

const positiveInt = z.int({ error: 'expected a whole number of tokens, at least 1' }).min(1).optional();
const dollars = z.number({ error: 'expected an amount in US dollars, above 0' }).positive().optional();

export const BudgetSchema = z
  .strictObject({
    /** Tokens (prompt + completion) one question may spend; `--token-budget` overrides it. */
    tokens_per_question: positiveInt,
    /** Tokens a session may spend in all (its earlier runs counted from its trace when continued). */
    tokens_per_session: positiveInt,
    /** US dollars one question may spend, where the model's price is known. */
    usd_per_question: dollars,
    usd_per_session: dollars,
    /** Prices added to or replacing config/prices.yaml's, by model name or provider:model (a trailing * matches a prefix). */
    prices: PricesSchema.default({}),
  })
  .prefault({});
export type BudgetSettings = z.infer<typeof BudgetSchema>;

/** The shipped price table (config/prices.yaml); empty when the file is absent. @throws ConfigError when it is invalid. */
export function shippedPrices(file = join(PROJECT_ROOT, 'config', 'prices.yaml')): Prices {
  if (!existsSync(file)) return {};
  return parseConfigText(readConfigFile(file), file, PricesSchema);
}

/** The price of `model` served by `provider`: an exact key first, then the longest matching `prefix*` key; null when unknown. */
export function priceOf(prices: Prices, provider: string, model: string): Price | null {
  const names = [`${provider}:${model}`, model];
  for (const name of names) if (prices[name]) return prices[name];
  let best: { length: number; price: Price } | null = null;
  for (const [key, price] of Object.entries(prices)) {
    if (!key.endsWith('*')) continue;
    const prefix = key.slice(0, -1);
    if (names.some((n) => n.startsWith(prefix)) && (!best || prefix.length > best.length)) best = { length: prefix.length, price };
  }
  return best?.price ?? null;
}
