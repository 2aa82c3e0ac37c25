import { describe, expect, it } from 'vitest'
import { startServer } from '../helpers/server.js'

// A date format with a quote inside its literal text (`h 'o''clock'`), as Java's date formats
// write it, lost the quote: "3 oclock".
describe('a quote doubled inside the literal text of a date format', () => {
  it('is written as one quote', async () => {
    const app = await startServer({
      dsl: [
        {
          dsl: {
            requestDsl: { method: 'GET', path: '/time' },
            responseDsl: {
              text: "{{dateFormat '2021-03-04T15:06:07Z' \"h 'o''clock' a, ''yy\"}}",
              template: true,
            },
          },
        },
      ],
    })
    const res = await fetch(`${app.url}/time`)
    expect(res.status).toBe(200)
    expect(await res.text()).toBe("3 o'clock PM, '21")
  })
})
