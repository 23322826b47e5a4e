import { isJsonObject, MAX_JSON_DEPTH, type JsonObject } from '../events/untrusted.js';

/**
 * Whether a framework's value is, as data, the JSON the hooks judged (`judged`, the host core's
 * copy): how an adapter tells that a tool call coming back (to `execute`, after an approval) is
 * the very call its verdict was given for. A walk that reads each own enumerable property once and
 * allocates nothing; anything that is not plain data the same way (a class instance, a getter's
 * answer that changed, a value past the depth bound) is not the same, and is decided again.
 */
export const sameData = (value: unknown, judged: unknown, levels: number = MAX_JSON_DEPTH): boolean => {
  if (typeof judged !== 'object' || judged === null) return value === judged;
  if (typeof value !== 'object' || value === null || levels === 0) return false;
  if (Array.isArray(judged)) {
    if (!Array.isArray(value) || value.length !== judged.length) return false;
    for (let i = 0; i < judged.length; i++) {
      if (!sameData(value[i], judged[i], levels - 1)) return false;
    }
    return true;
  }
  if (Array.isArray(value) || !isJsonObject(value)) return false;
  const keys = Object.keys(judged);
  if (Object.keys(value).length !== keys.length) return false;
  for (const key of keys) {
    if (!Object.hasOwn(value, key) || !sameData(value[key], (judged as JsonObject)[key], levels - 1))
      return false;
  }
  return true;
};
