import { Arg, Ctx, Mutation, Query, Resolver, UseMiddleware } from 'type-graphql';
import type { AppContext } from '../../core/context';
import { requireViewer } from '../../core/context';
import { Public, Rest } from '../../core/graphql-decorators';
import { AuthQuota } from '../../core/rate-limit';
import { createDeviceCode, decideDeviceCode, deviceCodeStatus, exchangeDeviceCode } from './device-login.service';
import { DeviceApprovalInput, DeviceApprovalResponse, DeviceCodeResponse, DeviceCodeStatusResponse, DeviceTokenInput, DeviceTokenResponse } from './device-login.types';

const TAGS = { tags: ['accounts'] };

/** Device-code login (decisions §14); the page that approves codes is src/modules/accounts/device-login.page.ts. */
@Resolver()
export class DeviceLoginResolver {
  @Mutation(() => DeviceCodeResponse, { description: "Start a device-code login (the CLI's `login`): no credential, no body." })
  @Public()
  @UseMiddleware(AuthQuota)
  @Rest('POST', '/auth/device/code', TAGS)
  create_device_code(@Ctx() ctx: AppContext): Promise<DeviceCodeResponse> {
    return createDeviceCode(ctx.ip);
  }

  @Query(() => DeviceCodeStatusResponse, { nullable: true, description: "A device code's state; `user_id` appears once it is approved. Unknown codes are 404." })
  @Public()
  @Rest('GET', '/auth/device/code/:device_code', { ...TAGS, secretParams: ['device_code'] })
  device_code_status(@Arg('device_code', () => String, { description: 'The device code.' }) deviceCode: string): Promise<DeviceCodeStatusResponse> {
    return deviceCodeStatus(deviceCode);
  }

  @Mutation(() => DeviceApprovalResponse, { description: 'Approve (or deny) a pending device login as the signed-in user; unknown, decided or expired codes are 404.' })
  @UseMiddleware(AuthQuota)
  @Rest('POST', '/auth/device/approve', TAGS)
  approve_device_code(@Arg('input', () => DeviceApprovalInput, { description: 'The user code and the decision.' }) input: DeviceApprovalInput, @Ctx() ctx: AppContext): Promise<DeviceApprovalResponse> {
    return decideDeviceCode(requireViewer(ctx), input.user_code, input.approve ?? true);
  }

  @Mutation(() => DeviceTokenResponse, { description: 'Exchange an approved device code for an access token, once; pending, denied, expired or used codes are refused (4xx).' })
  @Public()
  @UseMiddleware(AuthQuota)
  @Rest('POST', '/auth/device/token', TAGS)
  device_token(@Arg('input', () => DeviceTokenInput, { description: 'The device code.' }) input: DeviceTokenInput): Promise<DeviceTokenResponse> {
    return exchangeDeviceCode(input.device_code);
  }
}
